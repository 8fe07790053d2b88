import {
  ARCHIVE_FILTERS,
  type ArchiveFilter,
  type SessionPage,
  type SessionSummary,
} from '../../session/index.js'
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
    archived: summary.archived === true,
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

/**
 * `session/list`: most recent activity first, optionally in one `cwd`, archived ones left out
 * unless `archived` asks for them (`include`, `only`; another value is -32602), paged by an opaque
 * cursor, with lineage. Every row says whether it is archived.
 */
export const sessionListMethod = defineMethod({
  name: 'session/list',
  async handle(params, call) {
    const cwd = params.cwd ?? undefined
    const cursor = params.cursor ?? undefined
    if (cwd !== undefined) assertAbsolutePath('session/list', 'cwd', cwd)
    // Unstable (SDK 2.4.0): not in the stable request type the method is typed by.
    const archived = archiveFilter((params as { archived?: string | null }).archived ?? undefined)
    const query = {
      ...(cwd !== undefined && { cwd }),
      ...(cursor !== undefined && { cursor }),
      ...(archived !== undefined && { archived }),
    }
    try {
      return toResult(await call.sessions.list(query))
    } catch (error) {
      throw listError(error)
    }
  },
})

function archiveFilter(value: string | undefined): ArchiveFilter | undefined {
  if (value === undefined || (ARCHIVE_FILTERS as readonly string[]).includes(value)) {
    return value as ArchiveFilter | undefined
  }
  throw ProtocolError.invalidParams(
    `session/list: archived must be one of ${ARCHIVE_FILTERS.join(', ')}, not ${JSON.stringify(value)}`,
    { field: 'archived' },
  )
}

/** A bad cursor is the client's mistake (-32602); anything else goes on as it is. */
function listError(error: unknown): unknown {
  if (error instanceof TypeError) {
    return ProtocolError.invalidParams(`session/list: ${error.message}`, { field: 'cursor' })
  }
  return error
}
