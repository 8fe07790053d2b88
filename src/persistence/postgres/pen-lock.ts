import type pg from 'pg'
import { SessionError, SessionErrorCode } from '../../session/errors.js'
import type { SessionId } from '../../session/ids.js'
import { isConnectionLoss, type PostgresPool } from './pool.js'

/** The key of a session's pen among the database's advisory locks. */
const PEN_KEY = "hashtextextended('dsh-acp pen ' || $1, 0)"

/** A session's pen, held: the advisory lock on a connection of its own, which writes go through. */
export interface HeldPen {
  readonly client: pg.PoolClient
  /** Set when that connection failed: the database let the lock go with it. */
  lost?: Error
  /** Stops hearing the connection's errors (before it goes back to the pool). */
  readonly stopHearing: () => void
}

/**
 * Takes session `id`'s pen on a connection of the pool: `SESSION_LOCKED` (the connection given
 * back) while another host holds it. A failure of that connection later is kept in `lost` (and
 * `warn`ed): the lock went with it.
 */
export async function lockPen(
  db: PostgresPool,
  id: SessionId,
  warn: (message: string) => void,
): Promise<HeldPen> {
  const client = await db.connect()
  const onError = (error: Error) => {
    held.lost = error
    warn(`postgres: the connection holding the pen of ${id} failed: ${error.message}`)
  }
  const held: HeldPen = { client, stopHearing: () => client.off('error', onError) }
  client.on('error', onError)
  try {
    const { rows } = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${PEN_KEY}) AS ok`, [
      id,
    ])
    if (!rows[0]?.ok) {
      throw new SessionError(
        SessionErrorCode.SESSION_LOCKED,
        `session ${id} is being written by another host`,
        {
          sessionId: id,
        },
      )
    }
    return held
  } catch (error) {
    held.stopHearing()
    client.release(isConnectionLoss(error) ? (error as Error) : undefined)
    throw error
  }
}

/** Lets the pen go and gives its connection back (a lost one is dropped: the lock went with it). */
export async function unlockPen(held: HeldPen, id: SessionId): Promise<void> {
  const { client, lost } = held
  held.stopHearing()
  if (lost) {
    client.release(lost)
    return
  }
  try {
    await client.query(`SELECT pg_advisory_unlock(${PEN_KEY})`, [id])
    client.release()
  } catch (error) {
    // The connection is gone, and the lock with it.
    client.release(error as Error)
  }
}

export function lostPen(id: SessionId, cause: Error): SessionError {
  return new SessionError(
    SessionErrorCode.PERSISTENCE_FAILED,
    `session ${id}: the database connection holding its pen was lost (${cause.message}); nothing after the last acknowledged event was kept`,
    { sessionId: id, op: 'append' },
    { cause },
  )
}
