import type { ResponseMessage } from 'vscode-jsonrpc'
import { boundedError } from './bounded-error.js'
import type { WireId } from './envelope.js'

/** JSON-RPC 2.0 codes the wire layer answers with itself. */
export const WireErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
} as const

/** An error response as the wire layer writes it: single-line message, optional data, bounded in size. */
export function errorResponse(
  id: WireId | null,
  code: number,
  message: string,
  data?: Record<string, unknown>,
): ResponseMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: boundedError(data === undefined ? { code, message } : { code, message, data }),
  }
}

export function parseError(reason: string): ResponseMessage {
  return errorResponse(null, WireErrorCode.ParseError, `Parse error: ${reason}`)
}

export function invalidRequest(
  id: WireId | null,
  reason: string,
  data?: Record<string, unknown>,
): ResponseMessage {
  return errorResponse(id, WireErrorCode.InvalidRequest, `Invalid request: ${reason}`, data)
}

/** Messages of JSON.parse are single-line; cut them so a huge line does not echo back. */
export function describeParseFailure(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error)
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}
