import { isAbsolute } from 'node:path'
import type { SessionSummary } from '../../session/index.js'
import { ProtocolError } from '../errors.js'
import type { AcpMethod } from '../method.js'
import { objectParams, optionalString } from '../params.js'

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
export const sessionListMethod: AcpMethod = {
  name: 'session/list',
  advertise(capabilities) {
    capabilities.sessionCapabilities.list = {}
  },
  async handle(raw, call) {
    const params = objectParams('session/list', raw ?? {})
    const cwd = optionalString(params, 'cwd', 'session/list')
    const cursor = optionalString(params, 'cursor', 'session/list')
    if (cwd !== undefined && !isAbsolute(cwd)) {
      throw ProtocolError.invalidParams('session/list: cwd must be an absolute path', { field: 'cwd', cwd })
    }
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
}
