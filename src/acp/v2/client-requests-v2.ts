import type * as acp from '@agentclientprotocol/sdk'
import type * as v2 from '@agentclientprotocol/sdk/experimental/v2'
import type { ClientRequestSender } from '../client/client-requests.js'
import { toolCallV2 } from '../views/v2/tool-content.js'
import { isRecord } from './config-options-v2.js'

/** Sends one v2 `session/update` of a session (never rejects). */
export type V2SessionNotifier = (sessionId: string, update: Record<string, unknown>) => Promise<void>

/** Our requests that wait on the user: while one is pending, the turn `requires_action`. */
const USER_ACTIONS: ReadonlySet<string> = new Set(['session/request_permission', 'elicitation/create'])

/**
 * Our requests to a v2 client: a permission request in v2's shape (a required `title`, the tool
 * call as its `subject`); answers with an outcome or action we do not know taken as no approval
 * (v2's open enums, {@link knownAnswer}); and, per session, `state_update requires_action` before the first
 * request that waits on the user (a permission, an `ask_user` question, an MCP elicitation) and
 * `running` once none waits (unless the turn was cancelled meanwhile: its `idle` follows).
 */
export function v2ClientRequests(send: ClientRequestSender, notify: V2SessionNotifier): ClientRequestSender {
  const waiting = new Map<string, number>()
  return async (method, params, signal) => {
    const sessionId = isRecord(params) && typeof params.sessionId === 'string' ? params.sessionId : undefined
    const body = method === 'session/request_permission' ? permissionV2(params) : params
    if (sessionId === undefined || !USER_ACTIONS.has(method)) return send(method, body, signal)
    const before = waiting.get(sessionId) ?? 0
    waiting.set(sessionId, before + 1)
    if (before === 0) await notify(sessionId, { sessionUpdate: 'state_update', state: 'requires_action' })
    try {
      return knownAnswer(method, await send(method, body, signal))
    } finally {
      const left = (waiting.get(sessionId) ?? 1) - 1
      if (left > 0) waiting.set(sessionId, left)
      else {
        waiting.delete(sessionId)
        if (signal?.aborted !== true)
          void notify(sessionId, { sessionUpdate: 'state_update', state: 'running' })
      }
    }
  }
}

/** v1's `{sessionId, toolCall, options}` as v2's `{sessionId, title, subject, options}`. */
function permissionV2(params: unknown): unknown {
  if (!isRecord(params) || !isRecord(params.toolCall)) return params
  const { toolCall, ...rest } = params as unknown as acp.RequestPermissionRequest
  const request: v2.RequestPermissionRequest = {
    ...rest,
    title: toolCall.title ?? 'Allow this tool call?',
    subject: { type: 'tool_call', toolCall: toolCallV2(toolCall) },
  }
  return request
}

/**
 * v2's enums are open: an answer with an outcome or action we do not know (a `_`-prefixed custom
 * one, or a later version's) is kept from failing the request and taken as no approval: a
 * permission as `reject_once` (never as approval), a question as `cancel`.
 */
function knownAnswer(method: string, result: unknown): unknown {
  if (!isRecord(result)) return result
  if (method === 'session/request_permission') {
    const kind = isRecord(result.outcome) ? result.outcome.outcome : undefined
    if (kind === 'selected' || kind === 'cancelled') return result
    return { ...result, outcome: { outcome: 'selected', optionId: 'reject_once' } }
  }
  const action = result.action
  if (action === 'accept' || action === 'decline' || action === 'cancel') return result
  return { action: 'cancel' }
}
