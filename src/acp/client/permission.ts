import type * as acp from '@agentclientprotocol/sdk'
import type { PermissionAnswer } from '../../agent/config/permissions.js'
import type { PermissionRequest } from '../../agent/types.js'
import { type ClientRequestSender, sendClientRequest } from './client-requests.js'

/** The options every permission request offers; each option's id is its kind. */
const PERMISSION_OPTIONS = [
  { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow_always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
  { optionId: 'reject_always', name: 'Always reject', kind: 'reject_always' },
] as const

/** The tool call a permission request shows: ACP's `ToolCallUpdate`, with its kind. */
export type PermissionToolCall = Omit<acp.ToolCallUpdate, 'kind'> & { readonly kind: acp.ToolKind }

/** Where a permission request goes and which tool call it shows. */
export type PermissionTarget = (request: PermissionRequest) => {
  readonly sessionId: string
  readonly toolCall: PermissionToolCall
}

/** The request's own tool call, asked on `sessionId`. */
export function ownToolCall(sessionId: string): PermissionTarget {
  return (request) => ({
    sessionId,
    toolCall: {
      toolCallId: request.toolCallId,
      title: request.title,
      kind: request.kind,
      status: 'pending',
      ...(request.locations !== undefined && { locations: [...request.locations] }),
      ...(request.content !== undefined && { content: [...request.content] }),
      rawInput: request.rawInput,
    },
  })
}

/**
 * Asks `session/request_permission`: the kind of the option chosen, `cancelled` when the client
 * cancelled the question, and `reject_once` for an option we did not offer.
 */
export async function requestPermission(
  send: ClientRequestSender,
  target: ReturnType<PermissionTarget>,
  signal: AbortSignal,
): Promise<PermissionAnswer> {
  const toolCall = target.toolCall
  const { outcome } = await sendClientRequest(
    send,
    'session/request_permission',
    { sessionId: target.sessionId, toolCall, options: [...PERMISSION_OPTIONS] },
    signal,
  )
  if (outcome.outcome === 'cancelled') return 'cancelled'
  return PERMISSION_OPTIONS.find((option) => option.optionId === outcome.optionId)?.kind ?? 'reject_once'
}
