import type { ClientBridge } from '../../agent/types.js'
import type { ClientState } from '../client-state.js'
import { type ClientRequestSender, sendClientRequest } from './client-requests.js'
import { type ClientNotifier, elicitationBridge } from './elicitation.js'
import { ownToolCall, type PermissionTarget, requestPermission } from './permission.js'
import { terminalBridge } from './terminal-bridge.js'

export type { ClientRequestSender } from './client-requests.js'
export type { PermissionTarget } from './permission.js'

/** Where a bridge's questions are shown and its notifications go, when not the plain way. */
export interface BridgeRouting {
  /** Where permission requests (and questions of tool calls) are shown; default: the call's own. */
  readonly permissionTarget?: PermissionTarget | undefined
  /** How `elicitation/complete` is sent; default: the sender's notification. */
  readonly notify?: ClientNotifier | undefined
}

/**
 * The editor's services for one session's tools: `session/request_permission` (baseline ACP),
 * asked on `sessionId` about the request's own tool call unless `permissionTarget` says otherwise;
 * `fs/read_text_file`, `fs/write_text_file` and the `terminal/*` methods only when the client
 * advertised them; `elicitation/create` in the modes the client advertised, shown where permission
 * requests are (a question of a tool call a redirected target hides names the call it shows
 * instead). Every result is checked against the method's ACP schema: one it rejects fails
 * the call with a `ClientResponseError`.
 */
export function createClientBridge(
  send: ClientRequestSender,
  client: ClientState | undefined,
  sessionId: string,
  { permissionTarget, notify }: BridgeRouting = {},
): ClientBridge {
  const target = permissionTarget ?? ownToolCall(sessionId)
  const bridge: {
    -readonly [K in keyof ClientBridge]: ClientBridge[K]
  } = {
    requestPermission: (request, signal) => requestPermission(send, target(request), signal),
  }
  if (client?.capabilities.fs?.readTextFile === true) {
    bridge.readTextFile = async (path, signal) => {
      const response = await sendClientRequest(send, 'fs/read_text_file', { sessionId, path }, signal)
      return response.content
    }
  }
  if (client?.capabilities.fs?.writeTextFile === true) {
    bridge.writeTextFile = async (path, content, signal) => {
      await sendClientRequest(send, 'fs/write_text_file', { sessionId, path, content }, signal)
    }
  }
  if (client?.capabilities.terminal === true) bridge.terminal = terminalBridge(send, sessionId)
  const elicitation = elicitationBridge(
    send,
    client,
    (toolCallId) => {
      if (toolCallId === undefined || permissionTarget === undefined) {
        return { sessionId, ...(toolCallId !== undefined && { toolCallId }) }
      }
      const shown = permissionTarget({ sessionId, toolCallId, title: '', kind: 'other', rawInput: null })
      return { sessionId: shown.sessionId, toolCallId: shown.toolCall.toolCallId }
    },
    notify,
  )
  if (elicitation) bridge.elicitation = elicitation
  return bridge
}
