import { ConnectionError, ErrorCodes, ResponseError } from 'vscode-jsonrpc'
import type { ClientRequestSender } from '../client/client-requests.js'

/** The questions a turn asks a client that any client attached to its session may answer. */
const SESSION_QUESTIONS: ReadonlySet<string> = new Set(['session/request_permission'])

interface Question {
  /** Asks one more connection. */
  offer(send: ClientRequestSender): void
}

/** The request senders of the connections attached to a session, but `owner`'s. */
export type OtherAskers = (sessionId: string, owner: object) => readonly ClientRequestSender[]

/**
 * The questions a session's turn is waiting on (a permission request). A question is asked of the
 * connection whose turn asks it and of every other connection attached to the session; one that
 * attaches while it is open (a client that lost its connection loads or resumes the session) is
 * asked too. The first answer counts (the others' late answers are dropped). A question whose
 * connections are all gone is refused with the error of the last one: over `serve --listen` a
 * dropped connection is kept for the retention window (`--retention-seconds`), so that window
 * bounds how long a question waits for a client to come back.
 */
export class OpenQuestions {
  private readonly bySession = new Map<string, Set<Question>>()

  constructor(private readonly others: OtherAskers) {}

  /** A sender that asks `send`'s connection (`owner`) and keeps each session question open as above. */
  sender(send: ClientRequestSender, owner: object): ClientRequestSender {
    return (method, params, signal) => {
      const sessionId = sessionIdOf(params)
      if (!SESSION_QUESTIONS.has(method) || sessionId === undefined) return send(method, params, signal)
      return this.ask(sessionId, method, params, [send, ...this.others(sessionId, owner)], signal)
    }
  }

  /** Asks every open question of `sessionId` of a connection that just attached. */
  offerTo(sessionId: string, send: ClientRequestSender): void {
    for (const question of this.bySession.get(sessionId) ?? []) question.offer(send)
  }

  /** Whether a turn of `sessionId` waits on an answer. */
  waiting(sessionId: string): boolean {
    return (this.bySession.get(sessionId)?.size ?? 0) > 0
  }

  private ask(
    sessionId: string,
    method: string,
    params: unknown,
    askers: readonly ClientRequestSender[],
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      let outstanding = 0
      let settled = false
      const open = this.bySession.get(sessionId) ?? new Set<Question>()
      this.bySession.set(sessionId, open)
      const settle = (done: () => void) => {
        if (settled) return
        settled = true
        open.delete(question)
        if (open.size === 0 && this.bySession.get(sessionId) === open) this.bySession.delete(sessionId)
        done()
      }
      const question: Question = {
        offer: (send) => {
          if (settled) return
          outstanding++
          send(method, params, signal).then(
            (answer) => settle(() => resolve(answer)),
            (error: unknown) => {
              outstanding--
              if (outstanding > 0 && connectionGone(error) && !signal?.aborted) return
              settle(() => reject(error))
            },
          )
        },
      }
      open.add(question)
      for (const send of askers) question.offer(send)
    })
  }
}

/** The request failed because its connection ended, not because the client answered an error. */
function connectionGone(error: unknown): boolean {
  return (
    error instanceof ConnectionError ||
    (error instanceof ResponseError && error.code === ErrorCodes.PendingResponseRejected)
  )
}

function sessionIdOf(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null || !('sessionId' in params)) return undefined
  return typeof params.sessionId === 'string' ? params.sessionId : undefined
}
