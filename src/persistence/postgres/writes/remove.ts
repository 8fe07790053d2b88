import type pg from 'pg'
import { SessionError, SessionErrorCode } from '../../../session/errors.js'
import type { SessionId } from '../../../session/ids.js'
import { announce } from '../live/notices.js'
import { sessionRow } from '../reads/reads.js'
import { referencingChildren, STREAM_OF_1 } from '../rows.js'

/**
 * Deletes session `id` in the caller's transaction; false when there was none. Refused with
 * `SESSION_LOCKED` while another host holds its pen. Sessions referencing its events (fork
 * children, rewind branches) first get what they reference: the part of its own rows they use is
 * copied to them, and they reference its base for the rest.
 */
export async function removeSession(client: pg.ClientBase, id: SessionId): Promise<boolean> {
  const { rows } = await client.query<{ ok: boolean }>(
    "SELECT pg_try_advisory_xact_lock(hashtextextended('dsh-acp pen ' || $1, 0)) AS ok",
    [id],
  )
  if (!rows[0]?.ok) {
    throw new SessionError(
      SessionErrorCode.SESSION_LOCKED,
      `session ${id} is being written by another host`,
      { sessionId: id },
    )
  }
  const row = await sessionRow(client, id)
  if (!row) return false
  await client.query('SELECT 1 FROM dsh_sessions WHERE id = $1 FOR UPDATE', [id])
  for (const child of await referencingChildren(client, id, 0)) {
    const keep = Math.min(row.baseLength, child.baseLength)
    await client.query(
      `INSERT INTO dsh_events (session_id, seq, body) SELECT ${STREAM_OF_1}, seq, body FROM dsh_events WHERE session_id = $2 AND seq > $3 AND seq <= $4`,
      [child.id, row.stream, row.baseLength, child.baseLength],
    )
    await client.query('UPDATE dsh_sessions SET base_session = $2, base_length = $3 WHERE id = $1', [
      child.id,
      keep > 0 ? row.baseSession : null,
      keep,
    ])
  }
  await client.query('DELETE FROM dsh_events WHERE session_id = $1', [row.stream])
  await client.query('DELETE FROM dsh_sessions WHERE id = $1', [id])
  // Its id stays another session's stream (a rewind's branch took it over): a session made with
  // this id again gets a fresh one (the trigger of schema-streams.ts).
  await client.query(
    'INSERT INTO dsh_retired_streams (id) SELECT $1 WHERE EXISTS (SELECT 1 FROM dsh_sessions WHERE stream = $1) ON CONFLICT DO NOTHING',
    [id],
  )
  await announce(client, id, 0)
  return true
}
