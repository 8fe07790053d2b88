import { ResponseError } from 'vscode-jsonrpc'
import { ErrorCode, ProtocolError } from '../errors.js'
import { validateReplayFrom } from './attach/wire-validators.gen.js'
import { isRecord, sessionAnswerV2 } from './config-options-v2.js'
import { configValueV1, mcpServersV1 } from './open-enums.js'

/** A v2 request read into the v1 call that serves it, and its answer put back in v2's words. */
export interface V2Route {
  readonly method: string
  readonly params: unknown
  answer(result: unknown): unknown
  /**
   * A failure of the call in the client's words: an error whose message names the v1 call
   * (`session/load: …`) names the v2 method the client called instead (`session/resume: …`).
   */
  failure(error: unknown): unknown
}

/**
 * Requests a v2 client must send on their own line, not in a JSON-RPC batch: the lifecycle
 * messages ACP v2's transports page names (they change which later messages are valid). In a
 * batch each is answered -32600 and not run; the other entries run.
 */
export const V2_UNBATCHABLE: ReadonlySet<string> = new Set([
  'initialize',
  'auth/login',
  'session/new',
  'session/resume',
  'session/prompt',
])

/** v1 methods v2 removed: a v2 client calling one gets -32601. */
const REMOVED = new Set(['session/load', 'session/set_mode', 'authenticate', 'logout'])
/** v2 methods served by the v1 call of another name (same params, same empty answer). */
const RENAMED: ReadonlyMap<string, string> = new Map([
  ['auth/login', 'authenticate'],
  ['auth/logout', 'logout'],
])
const WITH_MCP_SERVERS = new Set(['session/new', 'session/resume', 'session/fork'])
const SESSION_ANSWERS = new Set([
  'session/new',
  'session/resume',
  'session/load',
  'session/set_config_option',
  'session/fork',
])

/**
 * The second reader of requests: a v2 request as the v1 call serving it. `session/resume` with
 * `replayFrom` is `session/load` (the replay: `{type: "start"}` all of it, `{type: "after_event",
 * sourceEventId}` the events after that seq, see `attach/`); without it, plain resume; another
 * cursor is refused (-32602). MCP servers and config values are read by open-enums.ts.
 * `auth/login` and `auth/logout` are v1's `authenticate` and `logout`.
 */
export function readV2Request(method: string, params: unknown): V2Route {
  if (REMOVED.has(method)) throw ProtocolError.methodNotFound(method)
  let target = RENAMED.get(method) ?? method
  let read = params
  if (isRecord(params) && WITH_MCP_SERVERS.has(method)) {
    const { replayFrom, mcpServers, ...rest } = params
    const forV1: Record<string, unknown> = { ...rest, mcpServers: mcpServersV1(mcpServers) }
    read = forV1
    if (method === 'session/resume' && replayFrom !== undefined && replayFrom !== null) {
      const seen = seenBefore('session/resume', replayFrom)
      if (seen > 0) read = { ...forV1, _meta: withAfterSeq(rest._meta, seen) }
      target = 'session/load'
    }
  }
  if (isRecord(params) && method === 'session/set_config_option') read = configValueV1(params)
  const answer = SESSION_ANSWERS.has(target) ? sessionAnswerV2 : (result: unknown) => result
  return { method: target, params: read, answer, failure: (error) => namingCalled(error, target, method) }
}

/** `error` with the `served:` that starts its message as `called:` (when the two differ). */
function namingCalled(error: unknown, served: string, called: string): unknown {
  if (served === called || !(error instanceof ResponseError)) return error
  const prefix = `${served}:`
  if (!error.message.startsWith(prefix)) return error
  return new ProtocolError(error.code, `${called}:${error.message.slice(prefix.length)}`, error.data)
}

/** `result`, failing (if it fails) in the client's words (see `V2Route.failure`). */
export function inClientWords(result: PromiseLike<unknown>, route: V2Route): Promise<unknown> {
  return Promise.resolve(result).catch((error: unknown) => {
    throw route.failure(error)
  })
}

/**
 * The seq a `replayFrom` cursor replays after: 0 for `start`, the `sourceEventId` (a seq, as a
 * decimal string) for `after_event`; anything else is -32602 naming `method`.
 */
export function seenBefore(method: string, replayFrom: unknown): number {
  if (!validateReplayFrom(replayFrom))
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      `${method}: replayFrom: {"type":"start"} or {"type":"after_event","sourceEventId":"<seq>"}`,
    )
  return replayFrom.type === 'start' ? 0 : Number(replayFrom.sourceEventId)
}

function withAfterSeq(meta: unknown, afterSeq: number): Record<string, unknown> {
  const base = isRecord(meta) ? meta : {}
  const dsh = isRecord(base.dsh) ? base.dsh : {}
  return { ...base, dsh: { ...dsh, afterSeq } }
}
