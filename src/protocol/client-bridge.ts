import type { MessageConnection } from 'vscode-jsonrpc'
import type { ClientBridge, PermissionRequest } from '../agent/types.js'
import type { ClientState } from './method.js'

/** Rejects as soon as `signal` aborts; the request itself is left to the client to finish. */
function untilAborted<T>(request: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    request.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** Where a permission request goes and which tool call it shows. */
export type PermissionTarget = (request: PermissionRequest) => {
  readonly sessionId: string
  readonly toolCall: Readonly<Record<string, unknown>>
}

/**
 * The editor's services for one session's tools: `fs/read_text_file` and `fs/write_text_file`
 * only when the client advertised them, and `session/request_permission` (baseline ACP), asked
 * on `sessionId` about the request's own tool call unless `permissionTarget` says otherwise.
 */
export function createClientBridge(
  rpc: MessageConnection,
  client: ClientState | undefined,
  sessionId: string,
  permissionTarget?: PermissionTarget,
): ClientBridge {
  const target: PermissionTarget =
    permissionTarget ??
    ((request) => ({
      sessionId,
      toolCall: {
        toolCallId: request.toolCallId,
        title: request.title,
        kind: request.kind,
        status: 'pending',
        rawInput: request.rawInput,
      },
    }))
  const bridge: {
    -readonly [K in keyof ClientBridge]: ClientBridge[K]
  } = {
    requestPermission: async (request: PermissionRequest, signal: AbortSignal) => {
      const response = (await untilAborted(
        rpc.sendRequest('session/request_permission', {
          ...target(request),
          options: [
            { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
            { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
          ],
        }),
        signal,
      )) as { outcome?: { outcome?: string; optionId?: string } } | null
      return response?.outcome?.outcome === 'selected' && response.outcome.optionId === 'allow'
    },
  }
  if (client?.capabilities.fs?.readTextFile === true) {
    bridge.readTextFile = async (path, signal) => {
      const response = (await untilAborted(
        rpc.sendRequest('fs/read_text_file', { sessionId, path }),
        signal,
      )) as {
        content?: unknown
      } | null
      if (typeof response?.content !== 'string')
        throw new Error('the editor answered fs/read_text_file without content')
      return response.content
    }
  }
  if (client?.capabilities.fs?.writeTextFile === true) {
    bridge.writeTextFile = async (path, content, signal) => {
      await untilAborted(rpc.sendRequest('fs/write_text_file', { sessionId, path, content }), signal)
    }
  }
  return bridge
}
