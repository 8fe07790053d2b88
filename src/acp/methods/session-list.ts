import type { SessionPage, SessionSummary } from '../../session/index.js'
import { ProtocolError } from '../errors.js'
import { defineMethod } from '../method.js'
import { assertAbsolutePath } from '../requests/params.js'

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
        ...(summary.cost !== undefined && { cost: summary.cost }),
      },
    },
  }
}

/** `session/list`: most recent activity first, optionally in one `cwd`, paged by an opaque cursor, with lineage. */
export const sessionListMethod = defineMethod({
  name: 'session/list',
  async handle(params, call) {
    const cwd = params.cwd ?? undefined
    const cursor = params.cursor ?? undefined
    if (cwd !== undefined) assertAbsolutePath('session/list', 'cwd', cwd)
    const query = { ...(cwd !== undefined && { cwd }), ...(cursor !== undefined && { cursor }) }
    try {
      return toResult(await call.sessions.list(query))
    } catch (error) {
      throw listError(error)
    }
  },
})

/** A bad cursor is the client's mistake (-32602); anything else goes on as it is. */
function listError(error: unknown): unknown {
  if (error instanceof TypeError) {
    return ProtocolError.invalidParams(`session/list: ${error.message}`, { field: 'cursor' })
  }
  return error
}
