import type { NotificationMessage, RequestMessage, ResponseMessage } from 'vscode-jsonrpc'

/** A request id we can answer with: a string or an integer (JSON-RPC also allows null; we never answer to it). */
export type WireId = string | number

/** The outcome of checking one parsed JSON value against the JSON-RPC 2.0 envelope. */
export type Envelope =
  | { readonly kind: 'request'; readonly message: RequestMessage & { id: WireId } }
  | { readonly kind: 'notification'; readonly message: NotificationMessage }
  | { readonly kind: 'response'; readonly message: ResponseMessage }
  | { readonly kind: 'batch'; readonly entries: readonly unknown[] }
  /** `id` is the value's id when it is usable for an answer (string or integer), else null. */
  | { readonly kind: 'invalid'; readonly id: WireId | null; readonly reason: string }

/** True for the ids we answer with: strings and integers. */
export function isWireId(value: unknown): value is WireId {
  return typeof value === 'string' || Number.isInteger(value)
}

function isParams(value: unknown): boolean {
  return typeof value === 'object' && value !== null
}

/**
 * Classifies a parsed JSON value. Valid means: an object with `jsonrpc` exactly `"2.0"` that is
 * a request (`method` string, `id` string or integer), a notification (`method` string, no `id`)
 * or a response (no `method`; `id` string, integer or null; a `result`, or an `error` object).
 * `params`, when present, must be an object or an array. Arrays are batches (ACP v1 has none; ACP
 * v2 reads them on stdio).
 */
export function classify(value: unknown): Envelope {
  if (Array.isArray(value)) return { kind: 'batch', entries: value }
  if (typeof value !== 'object' || value === null) {
    return invalid(null, 'a JSON-RPC message must be a JSON object')
  }
  const candidate = value as Record<string, unknown>
  const hasId = 'id' in candidate
  const id = isWireId(candidate.id) ? candidate.id : null
  if (candidate.jsonrpc !== '2.0') return invalid(id, 'jsonrpc must be exactly "2.0"')
  if (hasId && candidate.id !== null && !isWireId(candidate.id)) {
    return invalid(null, 'id must be a string, an integer or null')
  }
  if ('method' in candidate) {
    if (typeof candidate.method !== 'string') return invalid(id, 'method must be a string')
    if ('params' in candidate && !isParams(candidate.params)) {
      return invalid(id, 'params must be an object or an array')
    }
    if (!hasId) return { kind: 'notification', message: value as NotificationMessage }
    if (id === null) return invalid(null, 'a request id must be a string or an integer, not null')
    return { kind: 'request', message: value as RequestMessage & { id: WireId } }
  }
  if (hasId && ('result' in candidate || isParams(candidate.error))) {
    return { kind: 'response', message: value as ResponseMessage }
  }
  return invalid(id, 'not a request, a notification or a response')
}

function invalid(id: WireId | null, reason: string): Envelope {
  return { kind: 'invalid', id, reason }
}
