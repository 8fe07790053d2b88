import type pg from 'pg'
import type { SessionId } from '../../../session/ids.js'
import { type SessionRow, sessionRow } from '../reads/reads.js'
import { changedError, copyResolved, referencingChildren, STREAM_OF_1 } from '../rows.js'

type Child = { readonly id: SessionId; readonly baseLength: number }

/** A cut under way: session `id` (its locked `row`) back to its first `count` events, and who references past them. */
interface Cut {
  readonly id: SessionId
  readonly row: SessionRow
  readonly count: number
  readonly children: readonly Child[]
}

/**
 * A rewind's cut of session `id` (whose stored log must end at `committed`) back to its first
 * `count` events, in the caller's transaction. When a session references the whole log (the
 * rewind's archived branch, made just before), the cut is metadata ({@link handOver}): no event
 * row is copied, moved or deleted but the branch's few own ones. Otherwise every session
 * referencing events past `count` gets a copy of them and this session's rows past `count` go.
 */
export async function cutRows(
  client: pg.ClientBase,
  id: SessionId,
  committed: number,
  count: number,
): Promise<void> {
  const row = await sessionRow(client, id, true)
  if (!row) throw changedError(id, 'it was deleted')
  if (row.lastSeq !== committed) throw changedError(id, `its stored log ends at seq ${row.lastSeq}`)
  await client.query('SELECT 1 FROM dsh_sessions WHERE id = $1 FOR UPDATE', [id])
  const children = await referencingChildren(client, id, count)
  const heir = children.findLast((child) => child.baseLength === row.lastSeq)
  const cut = { id, row, count, children }
  if (heir && count < row.lastSeq) await handOver(client, cut, heir)
  else await cutByCopies(client, cut)
}

/**
 * The cut as metadata: `heir` (referencing all `row.lastSeq` events) takes over this session's
 * stream and base (its own rows, a handful past `row.lastSeq`, join that stream), every other
 * session referencing past `count` references `heir` instead (the same events), and this session
 * gets a new, empty stream and references its first `count` events where they are: in `heir`
 * past its base, else in its base.
 */
async function handOver(client: pg.ClientBase, cut: Cut, heir: Child): Promise<void> {
  const { id, row, count, children } = cut
  const keepBase = count <= row.baseLength
  await client.query(
    `UPDATE dsh_sessions SET stream = '~' || nextval('dsh_stream_keys'), last_seq = $2, base_length = $2,
       base_session = CASE WHEN $2 = 0 THEN NULL WHEN $3 THEN base_session ELSE $4 END WHERE id = $1`,
    [id, count, keepBase, heir.id],
  )
  await client.query(`UPDATE dsh_events SET session_id = $2 WHERE session_id = ${STREAM_OF_1} AND seq > $3`, [
    heir.id,
    row.stream,
    row.lastSeq,
  ])
  await client.query(
    'UPDATE dsh_sessions SET stream = $2, base_session = $3, base_length = $4 WHERE id = $1',
    [heir.id, row.stream, row.baseSession, row.baseLength],
  )
  const others = children.filter((child) => child.id !== heir.id).map((child) => child.id)
  if (others.length > 0) {
    await client.query('UPDATE dsh_sessions SET base_session = $2 WHERE id = ANY($1::text[])', [
      others,
      heir.id,
    ])
  }
}

/** The cut by copies: what each session referencing past `count` uses is copied to it, then this session's rows past `count` go. */
async function cutByCopies(client: pg.ClientBase, cut: Cut): Promise<void> {
  const { id, row, count, children } = cut
  for (const child of children) {
    await copyResolved(client, { id, row }, { lo: count + 1, hi: child.baseLength }, child.id)
    await client.query('UPDATE dsh_sessions SET base_session = $2, base_length = $3 WHERE id = $1', [
      child.id,
      count > 0 ? id : null,
      count,
    ])
  }
  await client.query('DELETE FROM dsh_events WHERE session_id = $1 AND seq > $2', [row.stream, count])
  const baseLength = Math.min(row.baseLength, count)
  await client.query(
    'UPDATE dsh_sessions SET last_seq = $2, base_length = $3, base_session = CASE WHEN $3 = 0 THEN NULL ELSE base_session END WHERE id = $1',
    [id, count, baseLength],
  )
}
