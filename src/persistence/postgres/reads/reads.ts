import type pg from 'pg'
import { SessionError, SessionErrorCode } from '../../../session/errors.js'
import type { SessionHeader } from '../../../session/header.js'
import type { SessionId } from '../../../session/ids.js'
import type { SessionEvent } from '../../../session/log/events.js'
import { withStoredLine } from '../../../session/log/stored-event.js'
import { parseHeader } from '../../file-format.js'

/** A session's row, as the reads need it. */
export interface SessionRow {
  readonly header: SessionHeader
  readonly lastSeq: number
  readonly baseSession: SessionId | null
  readonly baseLength: number
  /** The key of its own event rows (`dsh_events.session_id`): its id until a rewind gave it another. */
  readonly stream: string
}

/** Where a run of a session's events is stored: rows `from..to` (inclusive) of `stream`. */
export interface Segment {
  readonly stream: string
  readonly from: number
  readonly to: number
}

/** Rows fetched per query while a log is read. */
const CHUNK = 2000

/** How a stored session is named in errors: `postgres:<id>`, where the JSONL backend names its file. */
export function storedName(id: SessionId): string {
  return `postgres:${id}`
}

export function corruptRow(id: SessionId, seq: number, message: string): SessionError {
  return new SessionError(SessionErrorCode.CORRUPT_SESSION, `${storedName(id)} seq ${seq}: ${message}`, {
    sessionId: id,
    seq,
  })
}

/** The row of session `id` (`FOR SHARE` when `lock`), or undefined. A bad header is `CORRUPT_SESSION`. */
export async function sessionRow(
  client: pg.ClientBase,
  id: SessionId,
  lock = false,
): Promise<SessionRow | undefined> {
  const { rows } = await client.query<{
    header: string
    last_seq: number
    base_session: string | null
    base_length: number
    stream: string
  }>(
    `SELECT header::text AS header, last_seq, base_session, base_length, COALESCE(stream, id) AS stream FROM dsh_sessions WHERE id = $1${lock ? ' FOR SHARE' : ''}`,
    [id],
  )
  const row = rows[0]
  if (!row) return undefined
  const header = parseHeader(row.header, storedName(id), id)
  if (header.seedLength !== undefined && header.seedLength > row.last_seq) {
    throw corruptRow(id, 1, `header says ${header.seedLength} seed events but the log holds ${row.last_seq}`)
  }
  return {
    header,
    lastSeq: row.last_seq,
    baseSession: row.base_session as SessionId | null,
    baseLength: row.base_length,
    stream: row.stream,
  }
}

/**
 * Where events `1..row.lastSeq` of a session are stored, in seq order: its bases' rows (a fork child
 * references its parent's first events instead of copying them), then its own. A base shorter
 * than its reference, or a reference cycle, is `CORRUPT_SESSION`.
 */
export async function segmentsOf(client: pg.ClientBase, id: SessionId, row: SessionRow): Promise<Segment[]> {
  const segments: Segment[] = []
  if (row.lastSeq > row.baseLength)
    segments.push({ stream: row.stream, from: row.baseLength + 1, to: row.lastSeq })
  let through = row.baseLength
  let base = row.baseSession
  const seen = new Set<string>([id])
  while (base !== null && through > 0) {
    if (seen.has(base)) throw corruptRow(id, 1, `its base sessions form a cycle through ${base}`)
    seen.add(base)
    const { rows } = await client.query<{
      last_seq: number
      base_session: string | null
      base_length: number
      stream: string
    }>(
      'SELECT last_seq, base_session, base_length, COALESCE(stream, id) AS stream FROM dsh_sessions WHERE id = $1',
      [base],
    )
    const at = rows[0]
    if (!at || at.last_seq < through) {
      throw corruptRow(
        id,
        1,
        `its base ${base} holds ${at?.last_seq ?? 0} events, not the ${through} it references`,
      )
    }
    if (through > at.base_length) segments.push({ stream: at.stream, from: at.base_length + 1, to: through })
    through = Math.min(through, at.base_length)
    base = at.base_session
  }
  return segments.reverse()
}

/**
 * Reads events `from..` of session `id` (its bases' rows first) in seq order, handing each to
 * `hear` (awaited) with its stored text lent ({@link withStoredLine}); stops when `hear` says
 * `false`. Every row is checked to be an object event with the seq it is stored under, and none may
 * be missing: a bad or missing row is `CORRUPT_SESSION` naming the seq, never skipped. Resolves
 * how many events were heard.
 */
export async function readEvents(
  client: pg.ClientBase,
  session: { readonly id: SessionId; readonly row: SessionRow },
  from: number,
  hear: (event: SessionEvent) => unknown,
): Promise<number> {
  const { id, row } = session
  let next = Math.max(1, from)
  let heard = 0
  for (const segment of await segmentsOf(client, id, row)) {
    if (segment.to < next) continue
    while (next <= segment.to) {
      const { rows } = await client.query<{ seq: number; body: string }>(
        'SELECT seq, body::text AS body FROM dsh_events WHERE session_id = $1 AND seq >= $2 AND seq <= $3 ORDER BY seq LIMIT $4',
        [segment.stream, next, segment.to, CHUNK],
      )
      if (rows.length === 0) throw corruptRow(id, next, `event ${next} is missing`)
      for (const { seq, body } of rows) {
        if (seq !== next) throw corruptRow(id, next, `event ${next} is missing`)
        const event = parseEvent(id, seq, body)
        const line = Buffer.from(body, 'utf8')
        let more = withStoredLine(event, line, () => hear(event))
        if (more instanceof Promise) more = await more
        heard++
        if (more === false) return heard
        next++
      }
    }
  }
  return heard
}

function parseEvent(id: SessionId, seq: number, body: string): SessionEvent {
  let event: unknown
  try {
    event = JSON.parse(body)
  } catch (error) {
    throw corruptRow(id, seq, `not a JSON event: ${(error as Error).message}`)
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event))
    throw corruptRow(id, seq, 'not an event object')
  const e = event as Record<string, unknown>
  if (e.seq !== seq)
    throw corruptRow(id, seq, `expected an event with seq ${seq}, got ${JSON.stringify(e.seq)}`)
  if (
    typeof e.type !== 'string' ||
    typeof e.time !== 'string' ||
    typeof e.data !== 'object' ||
    e.data === null
  ) {
    throw corruptRow(id, seq, 'an event needs a string type and time and an object data')
  }
  return event as SessionEvent
}
