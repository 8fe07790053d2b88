import type { SessionSummary } from '../../session/index.js'
import { ProtocolError } from '../errors.js'
import { defineMethod } from '../method.js'
import { assertAbsolutePath } from '../params.js'

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

/** `session/list`: newest first, optionally in one `cwd`, paged by an opaque cursor, with lineage. */
export const sessionListMethod = defineMethod({
  name: 'session/list',
  advertise(capabilities) {
    capabilities.sessionCapabilities.list = {}
  },
  async handle(params, call) {
    const cwd = params.cwd ?? undefined
    const cursor = params.cursor ?? undefined
    if (cwd !== undefined) assertAbsolutePath('session/list', 'cwd', cwd)
    let page: Awaited<ReturnType<typeof call.sessions.list>>
    try {
      page = await call.sessions.list({
        ...(cwd !== undefined && { cwd }),
        ...(cursor !== undefined && { cursor }),
      })
    } catch (error) {
      if (error instanceof TypeError)
        throw ProtocolError.invalidParams(`session/list: ${error.message}`, { field: 'cursor' })
      throw error
    }
    return {
      sessions: page.sessions.map(toSessionInfo),
      ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }),
    }
  },
})
