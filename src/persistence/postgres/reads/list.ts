import type { ListOptions, SessionPage, SessionSummary, SubagentMarker } from '../../../session/header.js'
import type { SessionId } from '../../../session/ids.js'
import type { Cost } from '../../../session/log/events.js'
import { decodeCursor, pageSize, paginate } from '../../../session/store/reads/paginate.js'
import type { PostgresPool } from '../pool.js'
import { storedName } from './reads.js'

interface ListRow {
  id: string
  header: {
    createdAt: string
    cwd: string
    parentSession?: string
    seedLength?: number
    subagent?: SubagentMarker
  }
  updated_at: string
  title: string | null
  archived: boolean
  cost: Cost | null
}

/**
 * One page of stored sessions, most recent activity first, from the `(updated_at, id)` index: the
 * rows after the cursor that match the filters, those live here left out of the query and taken
 * from `live` instead (their current state), merged in activity order.
 */
export async function listStored(
  db: PostgresPool,
  options: ListOptions,
  liveHere: readonly SessionId[],
  live: ((id: SessionId) => SessionSummary | undefined) | undefined,
): Promise<SessionPage> {
  const limit = pageSize(options.limit)
  const position = options.cursor !== undefined ? decodeCursor(options.cursor) : undefined
  const archived = options.archived ?? 'exclude'
  const where: string[] = []
  const values: unknown[] = []
  const param = (value: unknown) => {
    values.push(value)
    return `$${values.length}`
  }
  if (options.cwd !== undefined) where.push(`cwd = ${param(options.cwd)}`)
  if (archived === 'exclude') where.push('NOT archived')
  else if (archived === 'only') where.push('archived')
  if (position) where.push(`(updated_at, id) < (${param(position.updatedAt)}, ${param(position.sessionId)})`)
  const liveSummaries: SessionSummary[] = []
  const liveIds: string[] = []
  for (const id of liveHere) {
    const summary = live?.(id)
    if (!summary) continue
    liveIds.push(id)
    liveSummaries.push(summary)
  }
  if (liveIds.length > 0) where.push(`NOT (id = ANY(${param(liveIds)}::text[]))`)
  const { rows } = await db.query<ListRow>(
    `SELECT id, header, updated_at, title, archived, cost FROM dsh_sessions
     ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY updated_at DESC, id DESC LIMIT ${param(limit + 1)}`,
    values,
  )
  const stored = rows.map((row): SessionSummary => {
    const h = row.header
    if (typeof h !== 'object' || h === null) throw new Error(`${storedName(row.id as SessionId)}: bad header`)
    return {
      sessionId: row.id as SessionId,
      cwd: h.cwd,
      createdAt: h.createdAt,
      updatedAt: row.updated_at,
      ...(row.title !== null && { title: row.title }),
      ...(h.parentSession !== undefined && { parentSession: h.parentSession as SessionId }),
      ...(h.seedLength !== undefined && { seedLength: h.seedLength }),
      ...(h.subagent !== undefined && { subagent: { turn: h.subagent.turn, callId: h.subagent.callId } }),
      ...(row.archived && { archived: true as const }),
      ...(row.cost !== null && { cost: row.cost }),
      live: false,
    }
  })
  return paginate([...stored, ...liveSummaries], options)
}
