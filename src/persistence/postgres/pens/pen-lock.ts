import type pg from 'pg'
import { SessionError, SessionErrorCode } from '../../../session/errors.js'
import type { SessionId } from '../../../session/ids.js'
import { SIGNAL_CHANNEL } from '../live/notices.js'
import { inTransaction, isConnectionLoss, type PostgresPool } from '../pool.js'

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

/**
 * Lets the pen go and gives its connection back (a lost one is dropped: the lock went with it).
 * Hosts waiting for the pen are signalled (`live/notices.ts`) so that they try at once.
 */
export async function unlockPen(held: HeldPen, id: SessionId): Promise<void> {
  const { client, lost } = held
  held.stopHearing()
  if (lost) {
    client.release(lost)
    return
  }
  try {
    await client.query(`SELECT pg_advisory_unlock(${PEN_KEY}), pg_notify($2, $3)`, [
      id,
      SIGNAL_CHANNEL,
      JSON.stringify({ session: id }),
    ])
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

/**
 * A live session's pen on this host: whether the store wants it, and the lock while it is held.
 * Writes go through the pen's connection while it is held, else through one of the pool's.
 */
export class SessionPen {
  /** The store holds (or is taking) the pen. */
  wanted = false
  private held: HeldPen | undefined

  constructor(
    private readonly db: PostgresPool,
    private readonly id: SessionId,
    private readonly warn: (message: string) => void,
  ) {}

  /** Wanted or held: nobody else appends to the session meanwhile. */
  get busy(): boolean {
    return this.wanted || this.held !== undefined
  }

  get isHeld(): boolean {
    return this.held !== undefined
  }

  /** Takes the lock (unless held, or no longer wanted), then runs `check` on its connection; a failed check lets it go. */
  async lock(check: (client: pg.ClientBase) => Promise<void>): Promise<void> {
    if (this.held || !this.wanted) return
    const held = await lockPen(this.db, this.id, this.warn)
    this.held = held
    try {
      await check(held.client)
    } catch (error) {
      await this.unlock()
      throw error
    }
  }

  /** Lets the lock go (after `last`, on its connection while it lives, whose failure is ignored). */
  async unlock(last?: (client: pg.ClientBase) => Promise<void>): Promise<void> {
    const { held } = this
    if (!held) return
    this.held = undefined
    if (last && !held.lost) await last(held.client).catch(() => {})
    await unlockPen(held, this.id)
  }

  /** Runs `work` in one transaction: on the pen's connection while held (failing if it was lost). */
  write<T>(work: (client: pg.ClientBase) => Promise<T>): Promise<T> {
    const { held } = this
    if (!held) return this.db.transaction(work)
    if (held.lost) return Promise.reject(lostPen(this.id, held.lost))
    return inTransaction(held.client, work)
  }
}
