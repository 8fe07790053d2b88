import type pg from 'pg'
import type { SessionId } from '../../session/ids.js'
import { sessionRow } from './reads.js'
import { changedError, copyResolved, referencingChildren } from './rows.js'

/**
 * A rewind's cut of session `id` (whose stored log must end at `committed`) back to its first
 * `count` events, in the caller's transaction: every session referencing events past `count` gets
 * them (the archived branch, the last and longest, by moving this session's rows to it with one
 * UPDATE; any other by a copy), then this session's rows past `count` go and its version becomes
 * `count`.
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
  for (const [i, child] of children.entries()) {
    const own = Math.max(count, row.baseLength)
    if (i === children.length - 1 && child.baseLength > own) {
      // The inherited part past the cut is copied; this session's own rows move.
      await copyResolved(client, id, row, count + 1, own, child.id)
      await client.query(
        'UPDATE dsh_events SET session_id = $2 WHERE session_id = $1 AND seq > $3 AND seq <= $4',
        [id, child.id, own, child.baseLength],
      )
    } else {
      await copyResolved(client, id, row, count + 1, child.baseLength, child.id)
    }
    await client.query('UPDATE dsh_sessions SET base_session = $2, base_length = $3 WHERE id = $1', [
      child.id,
      count > 0 ? id : null,
      count,
    ])
  }
  await client.query('DELETE FROM dsh_events WHERE session_id = $1 AND seq > $2', [id, count])
  const baseLength = Math.min(row.baseLength, count)
  await client.query(
    'UPDATE dsh_sessions SET last_seq = $2, base_length = $3, base_session = CASE WHEN $3 = 0 THEN NULL ELSE base_session END WHERE id = $1',
    [id, count, baseLength],
  )
}
