import type { Context } from 'cordis'
import type { ModelChunk, ModelProvider, ModelRequest } from '../../src/agent/types.js'
import { abortable } from '../../src/lib/abort.js'
import type { ContentBlock, CoreEvent, JsonValue, Session, SessionEvent } from '../../src/session/index.js'

/**
 * Test support for the delegate tool (no test framework inside): a model that answers each step
 * with a function of the request, and readers for what a delegation leaves in the sessions.
 */

export type Answer = (req: ModelRequest, signal: AbortSignal) => ModelChunk[] | Promise<ModelChunk[]>

/** A provider whose every step is `answer(request)`; it records every request. */
export function modelOf(answer: Answer): ModelProvider & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = []
  return {
    name: 'fn',
    requests,
    stream(req, signal) {
      requests.push(req)
      return abortable(
        (async function* () {
          for (const chunk of await answer(req, signal)) yield chunk
        })(),
        signal,
      )
    },
  }
}

export const text = (t: string): ModelChunk => ({ type: 'text', text: t })
export const call = (callId: string, name: string, input: JsonValue): ModelChunk => ({
  type: 'tool_call',
  callId,
  name,
  input,
})

/** The text of the last user message of a request (the task, for a child's first request). */
export function lastUser(req: ModelRequest): string {
  const users = req.messages.filter((m) => m.role === 'user')
  const first = (users.at(-1)?.content as readonly ContentBlock[] | undefined)?.[0]
  return first?.type === 'text' ? first.text : ''
}

/** True when the request's last message is a tool result (the model's turn to go on). */
export const afterTools = (req: ModelRequest) => req.messages.at(-1)?.role === 'tool'

/** The session's own tool results (not those it inherited from its parent). */
export const results = (s: Session) =>
  s
    .events()
    .slice(s.header.seedLength ?? 0)
    .filter((e): e is CoreEvent<'tool/result'> => e.type === 'tool/result')

export const shape = (events: readonly SessionEvent[]) => events.map((e) => e.type)

export function childrenOf(c: Context, parent: Session): Session[] {
  return c.sessions.liveSessions().filter((s) => s.header.parentSession === parent.id)
}

/** A log of what happened, in order, whose readers can wait until it shows something. */
export class Happenings {
  readonly log: string[] = []
  private readonly waiting: { until: (log: readonly string[]) => boolean; resolve: () => void }[] = []

  add(entry: string): void {
    this.log.push(entry)
    for (const waiter of this.waiting.splice(0)) {
      if (waiter.until(this.log)) waiter.resolve()
      else this.waiting.push(waiter)
    }
  }

  /** Resolves once `until` holds for the log (at once if it already does). */
  when(until: (log: readonly string[]) => boolean): Promise<void> {
    if (until(this.log)) return Promise.resolve()
    return new Promise((resolve) => this.waiting.push({ until, resolve }))
  }
}
