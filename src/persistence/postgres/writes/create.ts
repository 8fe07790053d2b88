import type pg from 'pg'
import { SessionError, SessionErrorCode } from '../../../session/errors.js'
import type { SessionHeader } from '../../../session/header.js'
import type { SessionId } from '../../../session/ids.js'
import type { SessionEvent } from '../../../session/log/events.js'
import { insertEvents, insertSession, type Projection } from '../rows.js'

/** A session to create: its header, first events, the parent's events it may reference, its listing columns. */
interface NewSession {
  readonly header: SessionHeader
  readonly initial: readonly SessionEvent[]
  readonly reference: { readonly session: SessionId; readonly length: number } | undefined
  readonly projection: Projection
}

/**
 * Creates a session's row and its first events in the caller's transaction: a fork child whose
 * parent holds the `reference`d events (committed) references them instead of copying them.
 * `SESSION_ALREADY_EXISTS` when the id is taken.
 */
export async function createRows(client: pg.ClientBase, session: NewSession): Promise<void> {
  const { header, initial, reference, projection } = session
  let referenced = 0
  if (reference) {
    const parent = await client.query<{ last_seq: number }>(
      'SELECT last_seq FROM dsh_sessions WHERE id = $1 FOR SHARE',
      [reference.session],
    )
    if ((parent.rows[0]?.last_seq ?? 0) >= reference.length) referenced = reference.length
  }
  const base = referenced > 0 && reference ? { session: reference.session, length: referenced } : undefined
  if (!(await insertSession(client, { header, lastSeq: initial.length, base, projection }))) {
    throw new SessionError(
      SessionErrorCode.SESSION_ALREADY_EXISTS,
      `session ${header.id} already exists in the database`,
      { sessionId: header.id },
    )
  }
  await insertEvents(client, header.id, initial.slice(referenced))
}
