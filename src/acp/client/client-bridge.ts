import type { PermissionAnswer } from '../../agent/config/permissions.js'
import type { ClientBridge, PermissionRequest, TerminalBridge } from '../../agent/types.js'
import type { ClientState } from '../method.js'

/** Sends one request to the client and settles with its response. */
export type ClientRequestSender = (method: string, params: unknown) => Promise<unknown>

/** Rejects as soon as `signal` aborts; the request itself is left to the client to finish. */
function untilAborted<T>(request: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    request.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** The options every permission request offers; each option's id is its kind. */
export const PERMISSION_OPTIONS = [
  { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow_always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
  { optionId: 'reject_always', name: 'Always reject', kind: 'reject_always' },
] as const

const ANSWERS: ReadonlySet<string> = new Set(PERMISSION_OPTIONS.map((o) => o.optionId))

/** Where a permission request goes and which tool call it shows. */
export type PermissionTarget = (request: PermissionRequest) => {
  readonly sessionId: string
  readonly toolCall: Readonly<Record<string, unknown>>
}

/**
 * The editor's services for one session's tools: `session/request_permission` (baseline ACP),
 * asked on `sessionId` about the request's own tool call unless `permissionTarget` says otherwise;
 * `fs/read_text_file`, `fs/write_text_file` and the `terminal/*` methods only when the client
 * advertised them.
 */
export function createClientBridge(
  send: ClientRequestSender,
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
        ...(request.locations !== undefined && { locations: request.locations }),
        rawInput: request.rawInput,
      },
    }))
  const bridge: {
    -readonly [K in keyof ClientBridge]: ClientBridge[K]
  } = {
    requestPermission: (request, signal) => requestPermission(send, target(request), signal),
  }
  if (client?.capabilities.fs?.readTextFile === true) {
    bridge.readTextFile = async (path, signal) => {
      const response = (await untilAborted(send('fs/read_text_file', { sessionId, path }), signal)) as {
        content?: unknown
      } | null
      if (typeof response?.content !== 'string')
        throw new Error('the editor answered fs/read_text_file without content')
      return response.content
    }
  }
  if (client?.capabilities.fs?.writeTextFile === true) {
    bridge.writeTextFile = async (path, content, signal) => {
      await untilAborted(send('fs/write_text_file', { sessionId, path, content }), signal)
    }
  }
  if (client?.capabilities.terminal === true) bridge.terminal = terminalBridge(send, sessionId)
  return bridge
}

async function requestPermission(
  send: ClientRequestSender,
  target: ReturnType<PermissionTarget>,
  signal: AbortSignal,
): Promise<PermissionAnswer> {
  const response = (await untilAborted(
    send('session/request_permission', { ...target, options: PERMISSION_OPTIONS }),
    signal,
  )) as { outcome?: { outcome?: string; optionId?: string } } | null
  const outcome = response?.outcome
  if (outcome?.outcome === 'selected' && ANSWERS.has(outcome.optionId ?? '')) {
    return outcome.optionId as PermissionAnswer
  }
  if (outcome?.outcome === 'cancelled') return 'cancelled'
  return 'reject_once'
}

function terminalBridge(send: ClientRequestSender, sessionId: string): TerminalBridge {
  return {
    async create(command, signal) {
      const response = (await untilAborted(send('terminal/create', { sessionId, ...command }), signal)) as {
        terminalId?: unknown
      } | null
      if (typeof response?.terminalId !== 'string' || response.terminalId === '') {
        throw new Error('the editor answered terminal/create without a terminalId')
      }
      return response.terminalId
    },
    async output(terminalId, signal) {
      const response = (await untilAborted(send('terminal/output', { sessionId, terminalId }), signal)) as {
        output?: unknown
        truncated?: unknown
        exitStatus?: unknown
      } | null
      if (typeof response?.output !== 'string')
        throw new Error('the editor answered terminal/output without output')
      return {
        output: response.output,
        truncated: response.truncated === true,
        exitStatus: (response.exitStatus ?? null) as never,
      }
    },
    async waitForExit(terminalId, signal) {
      const response = (await untilAborted(
        send('terminal/wait_for_exit', { sessionId, terminalId }),
        signal,
      )) as { exitCode?: number | null; signal?: string | null } | null
      return { exitCode: response?.exitCode ?? null, signal: response?.signal ?? null }
    },
    async kill(terminalId) {
      await send('terminal/kill', { sessionId, terminalId })
    },
    async release(terminalId) {
      await send('terminal/release', { sessionId, terminalId })
    },
  }
}
