import type pg from 'pg'
import { SessionError, SessionErrorCode } from '../../session/errors.js'
import type { SessionHeader, SessionSummary } from '../../session/header.js'
import type { SessionId } from '../../session/ids.js'
import type { SessionEvent } from '../../session/log/events.js'
import { eventLine, headerLine } from '../file-format.js'
import { isConnectionLoss } from './pool.js'
import { type SessionRow, segmentsOf, storedName } from './reads/reads.js'

/** What the listing columns hold: a live session's summary when its events were committed. */
export interface Projection {
  readonly updatedAt: string
  readonly title: string | null
  readonly archived: boolean
  readonly cost: string | null
}

export function projectionOf(summary: SessionSummary): Projection {
  return {
    updatedAt: summary.updatedAt,
    title: summary.title ?? null,
    archived: summary.archived === true,
    cost: summary.cost === undefined ? null : JSON.stringify(summary.cost),
  }
}

/** The projection of a session nobody holds live any more: its last event's time (never before creation). */
export function fallbackProjection(header: SessionHeader, last: SessionEvent | undefined): Projection {
  const time = last && last.time > header.createdAt ? last.time : header.createdAt
  return { updatedAt: time, title: header.title ?? null, archived: false, cost: null }
}

export function changedError(id: SessionId, message: string): SessionError {
  return new SessionError(
    SessionErrorCode.SESSION_CHANGED,
    `session ${id} was changed by another writer (${message}): load it again`,
    { sessionId: id },
  )
}

const UNIQUE_VIOLATION = '23505'

/** SQL for the stream (the key of its own event rows) of the session whose id is parameter `$1`. */
export const STREAM_OF_1 = '(SELECT COALESCE(stream, id) FROM dsh_sessions WHERE id = $1)'

/**
 * Inserts `events` (contiguous) into session `id`'s own rows (its stream, looked up by this very
 * statement: an append runs it after {@link advanceVersion} locked the row, so a rewind handing the
 * stream over is ordered with it), as the JSONL line of each. A row that
 * exists already (another writer got there first) is `SESSION_CHANGED`.
 */
export async function insertEvents(
  client: pg.ClientBase,
  id: SessionId,
  events: readonly SessionEvent[],
): Promise<void> {
  for (let i = 0; i < events.length; i += 1000) {
    const slice = events.slice(i, i + 1000)
    try {
      await client.query(
        `INSERT INTO dsh_events (session_id, seq, body) SELECT ${STREAM_OF_1}, s, b::json FROM unnest($2::int[], $3::text[]) AS t(s, b)`,
        [id, slice.map((e) => e.seq), slice.map(eventLine)],
      )
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION)
        throw changedError(id, 'its events were written meanwhile')
      throw error
    }
  }
}

/**
 * The expected-version append: moves `last_seq` from `expected` to `next` and updates the listing
 * columns, in the caller's transaction (the row stays locked until it commits, so a second writer
 * waits and then finds the version moved). `SESSION_CHANGED` when the stored version is not
 * `expected` (another host appended, rewound or deleted the session).
 */
export async function advanceVersion(
  client: pg.ClientBase,
  id: SessionId,
  move: { readonly expected: number; readonly next: number },
  projection: Projection,
): Promise<void> {
  const { expected, next } = move
  const { rowCount } = await client.query(
    'UPDATE dsh_sessions SET last_seq = $3, updated_at = $4, title = $5, archived = $6, cost = $7::json WHERE id = $1 AND last_seq = $2',
    [id, expected, next, projection.updatedAt, projection.title, projection.archived, projection.cost],
  )
  if (rowCount === 0) throw changedError(id, `its stored log no longer ends at seq ${expected}`)
}

/** A new session row: its header and version, the session its first events are read from, its listing columns. */
interface NewSessionRow {
  readonly header: SessionHeader
  readonly lastSeq: number
  readonly base: { readonly session: SessionId; readonly length: number } | undefined
  readonly projection: Projection
}

/** Inserts the session row; false when the id is taken. */
export async function insertSession(client: pg.ClientBase, row: NewSessionRow): Promise<boolean> {
  const { header, lastSeq, base, projection } = row
  const { rowCount } = await client.query(
    `INSERT INTO dsh_sessions (id, header, cwd, created_at, updated_at, title, archived, cost, last_seq, base_session, base_length)
     VALUES ($1, $2::json, $3, $4, $5, $6, $7, $8::json, $9, $10, $11) ON CONFLICT (id) DO NOTHING`,
    [
      header.id,
      headerLine(header).trimEnd(),
      header.cwd,
      header.createdAt,
      projection.updatedAt,
      projection.title,
      projection.archived,
      projection.cost,
      lastSeq,
      base?.session ?? null,
      base?.length ?? 0,
    ],
  )
  return rowCount === 1
}

/** Copies events `lo..hi` of session `source.id` as it reads (through its bases) into `into`'s own rows. */
export async function copyResolved(
  client: pg.ClientBase,
  source: { readonly id: SessionId; readonly row: SessionRow },
  range: { readonly lo: number; readonly hi: number },
  into: SessionId,
): Promise<void> {
  const { id: from, row } = source
  const { lo, hi } = range
  for (const segment of await segmentsOf(client, from, row)) {
    const a = Math.max(lo, segment.from)
    const b = Math.min(hi, segment.to)
    if (a > b) continue
    await client.query(
      `INSERT INTO dsh_events (session_id, seq, body) SELECT ${STREAM_OF_1}, seq, body FROM dsh_events WHERE session_id = $2 AND seq BETWEEN $3 AND $4`,
      [into, segment.stream, a, b],
    )
  }
}

/** The sessions whose references reach past `through` into `id`'s events (locked for update), shortest first. */
export async function referencingChildren(
  client: pg.ClientBase,
  id: SessionId,
  through: number,
): Promise<{ id: SessionId; baseLength: number }[]> {
  const { rows } = await client.query<{ id: string; base_length: number }>(
    'SELECT id, base_length FROM dsh_sessions WHERE base_session = $1 AND base_length > $2 ORDER BY base_length, id FOR UPDATE',
    [id, through],
  )
  return rows.map((r) => ({ id: r.id as SessionId, baseLength: r.base_length }))
}

/** An error of the database as the store reports it: `PERSISTENCE_FAILED` naming the operation. */
export function databaseError(id: SessionId, op: string, error: unknown): SessionError {
  if (error instanceof SessionError) return error
  const code = (error as { code?: string }).code
  const message = (error as Error)?.message ?? String(error)
  const why = isConnectionLoss(error)
    ? `the connection to the database was lost (${message}); nothing after the last acknowledged event was kept`
    : message
  return new SessionError(
    SessionErrorCode.PERSISTENCE_FAILED,
    `session ${id}: ${op} on ${storedName(id)} failed: ${why}`,
    { sessionId: id, op, ...(code !== undefined && { sqlState: code }) },
    { cause: error },
  )
}

/** Sets the listing columns of session `id` (after a rewind: its last events changed). */
export async function updateListing(
  client: pg.ClientBase,
  id: SessionId,
  projection: Projection,
): Promise<void> {
  await client.query(
    'UPDATE dsh_sessions SET updated_at = $2, title = $3, archived = $4, cost = $5::json WHERE id = $1',
    [id, projection.updatedAt, projection.title, projection.archived, projection.cost],
  )
}
