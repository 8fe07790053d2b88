import type { SessionPage, SessionSummary } from '../../session/index.js'
import { ProtocolError } from '../errors.js'
import { defineMethod } from '../method.js'
import { assertAbsolutePath } from '../requests/params.js'

/**
 * The answers to pages the store gave out frozen (it gives the same page object again while
 * nothing listed changed): made and serialized once per page.
 */
const answers = new WeakMap<SessionPage, ReturnType<typeof toResult>>()

/** The answer to each page promise the store handed out (lists joining one refresh share one). */
const pendingAnswers = new WeakMap<Promise<SessionPage>, Promise<ReturnType<typeof answerFor>>>()

function toResult(page: SessionPage) {
  return {
    sessions: page.sessions.map(toSessionInfo),
    ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }),
  }
}

function toSessionInfo(summary: SessionSummary) {
  return {
    sessionId: summary.sessionId,
    cwd: summary.cwd,
    ...(summary.title !== undefined && { title: summary.title }),
    updatedAt: summary.updatedAt,
    _meta: {
      dsh: {
        createdAt: summary.createdAt,
        ...(summary.parentSession !== undefined && { parentSession: summary.parentSession }),
        ...(summary.seedLength !== undefined && { seedLength: summary.seedLength }),
        ...(summary.subagent !== undefined && { subagent: summary.subagent }),
      },
    },
  }
}

/** `session/list`: most recent activity first, optionally in one `cwd`, paged by an opaque cursor, with lineage. */
export const sessionListMethod = defineMethod({
  name: 'session/list',
  handle(params, call) {
    const cwd = params.cwd ?? undefined
    const cursor = params.cursor ?? undefined
    if (cwd !== undefined) assertAbsolutePath('session/list', 'cwd', cwd)
    const query = { ...(cwd !== undefined && { cwd }), ...(cursor !== undefined && { cursor }) }
    // Answered at once when the store needs no I/O for it (no persistence).
    let now: SessionPage | undefined
    try {
      now = call.sessions.listNow(query)
    } catch (error) {
      throw listError(error)
    }
    if (now) return answerFor(now)
    const page = call.sessions.list(query)
    let answer = pendingAnswers.get(page)
    if (!answer) {
      answer = page.then(answerFor, (error: unknown) => {
        throw listError(error)
      })
      pendingAnswers.set(page, answer)
    }
    return answer
  },
})

/** A bad cursor is the client's mistake (-32602); anything else goes on as it is. */
function listError(error: unknown): unknown {
  if (error instanceof TypeError) {
    return ProtocolError.invalidParams(`session/list: ${error.message}`, { field: 'cursor' })
  }
  return error
}

function answerFor(page: SessionPage) {
  if (!Object.isFrozen(page)) return toResult(page)
  let answer = answers.get(page)
  if (!answer) {
    answer = toResult(page)
    answers.set(page, answer)
  }
  return answer
}
