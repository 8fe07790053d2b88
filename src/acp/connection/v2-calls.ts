import { isPromiseLike } from '../../jsonrpc/index.js'
import type { Call } from '../call-context.js'
import type { AcpMethod } from '../method.js'
import type { PromptParams } from '../methods/session-prompt.js'
import { promptOrSteerV2 } from '../v2/prompt-v2.js'
import type { V2Route } from '../v2/reader.js'
import { resumesSession, sendResumeState } from '../v2/resume-state-v2.js'

/** What a v2 call needs of its connection. */
export interface V2CallHost {
  /** Runs a handler as the connection runs a v1 call. */
  handle(method: AcpMethod, params: unknown, call: Call): unknown
  /** Sends a v2 `session/update` of `sessionId` as it is (already in v2's words); never rejects. */
  notifyV2(sessionId: string, update: Record<string, unknown>): Promise<void>
  /** Counts a turn as running until it has ended. */
  track(turn: Promise<unknown>): void
  /** Runs a turn as the writing call of `sessionId` (`SessionAudience.writing`). */
  writing<T>(sessionId: string, turn: () => Promise<T>): Promise<T>
}

/** The v2 requests of one connection, each read into its v1 call. */
export class V2Calls {
  constructor(private readonly host: V2CallHost) {}

  /**
   * A v2 request read into its v1 call: `session/prompt` runs ACP v2's prompt lifecycle (its turn
   * counted as running until it ends), or steers the turn running on the session; the others
   * answer in v2's words.
   */
  handle(route: V2Route, method: AcpMethod, params: unknown, call: Call): unknown {
    const host = this.host
    if (route.method === 'session/prompt') {
      const prompt = params as PromptParams
      return promptOrSteerV2(prompt, call, {
        send: (update) => host.notifyV2(prompt.sessionId, update),
        track: (turn) => host.track(turn),
        writing: (turn) => host.writing(prompt.sessionId, turn),
      })
    }
    const result = host.handle(method, params, call)
    const notify = (sessionId: string, update: Record<string, unknown>) => host.notifyV2(sessionId, update)
    if (resumesSession(route.method))
      return Promise.resolve(result).then(async (value) => {
        await sendResumeState(params, call, notify)
        return route.answer(value)
      })
    return isPromiseLike(result) ? Promise.resolve(result).then(route.answer) : route.answer(result)
  }
}
