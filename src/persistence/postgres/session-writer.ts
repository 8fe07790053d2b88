import type pg from 'pg'
import { SessionError, SessionErrorCode } from '../../session/errors.js'
import type { SessionHeader, SessionSummary } from '../../session/header.js'
import type { SessionId } from '../../session/ids.js'
import type { SessionEvent } from '../../session/log/events.js'
import { inTransaction, isConnectionLoss, type PostgresPool } from './pool.js'
import { sessionRow } from './reads.js'
import {
  advanceVersion,
  changedError,
  copyResolved,
  databaseError,
  fallbackProjection,
  insertEvents,
  insertSession,
  type Projection,
  projectionOf,
  referencingChildren,
} from './rows.js'

/** What a session's writer needs of its backend. */
export interface WriterEnv {
  readonly db: PostgresPool
  /** Resolves once the schema is migrated (rejects when it could not be). */
  readonly ready: Promise<void>
  /** The session could not be persisted: the store makes it read-only. */
  fail(id: SessionId, error: SessionError): void
  warn(message: string): void
  /** The current summary of the live session `id`, or undefined when it is not live. */
  summary(id: SessionId): SessionSummary | undefined
}

/** A fork child's reference to its parent's first events, once they are committed. */
export interface BaseReference {
  readonly session: SessionId
  readonly length: number
  /** Resolves once the parent's events through `length` are committed; rejects when they cannot be. */
  readonly committed: () => Promise<void>
}

/** The key of a session's pen among the database's advisory locks. */
const PEN_KEY = "hashtextextended('dsh-acp pen ' || $1, 0)"

/**
 * One live session's writes, in order, through one promise queue: the create (header and seed, or
 * a reference to the parent's events), batches of appended events (each batch one transaction: the
 * expected-version update of the session row, then its rows), the pen (a session-level advisory lock
 * on a connection of its own, held only while the session writes: the database lets it go if this
 * host's connection dies), a rewind's cut. The first failure fails the session (`fail`): what was
 * not committed is not acknowledged.
 */
export class PgSessionWriter {
  private queue: Promise<void>
  private pending: SessionEvent[] = []
  private drainQueued = false
  private failure: SessionError | undefined
  /** The pen: wanted by the store; `client` holds the advisory lock while it is taken. */
  private pen: { wanted: boolean; client?: pg.PoolClient; lost?: Error } = { wanted: false }
  /** A rewind cut the log: the listing columns are refreshed when the pen is let go. */
  private stale = false

  private constructor(
    readonly id: SessionId,
    private readonly env: WriterEnv,
    /** The seq of the last committed event: the version this writer expects the row to have. */
    private committed: number,
    private readonly header: SessionHeader,
    private last: SessionEvent | undefined,
  ) {
    this.queue = env.ready
  }

  /** The writer of a session being created: its header and `initial` events are written first. */
  static creating(
    env: WriterEnv,
    header: SessionHeader,
    initial: readonly SessionEvent[],
    base: BaseReference | undefined,
  ): PgSessionWriter {
    const writer = new PgSessionWriter(header.id, env, initial.length, header, initial[initial.length - 1])
    writer.enqueue('create', () => writer.create(initial, base))
    return writer
  }

  /** The writer of a stored session just read: its row is at version `lastSeq`. */
  static opened(
    env: WriterEnv,
    header: SessionHeader,
    lastSeq: number,
    last: SessionEvent | undefined,
  ): PgSessionWriter {
    return new PgSessionWriter(header.id, env, lastSeq, header, last)
  }

  append(event: SessionEvent): void {
    if (this.failure) return
    this.pending.push(event)
    this.last = event
    if (this.drainQueued) return
    this.drainQueued = true
    // Committed in the background as the session goes (batched): a flush finds little left.
    void this.enqueue('append', () => this.drain()).catch(() => {})
  }

  /** Resolves once everything appended so far is committed; rejects with the session's failure. */
  flush(): Promise<void> {
    return this.enqueue('append', () => this.drain())
  }

  /**
   * Takes the pen: synchronous for the store, the advisory lock and the expected-version check run
   * in order before any write that follows. Another host holding it, or a stored log that moved
   * past this view, fails the session (`SESSION_LOCKED`, `SESSION_CHANGED`) before anything is
   * written. Returns [] (a host does not catch up on another's appends: it loads again).
   */
  takePen(): SessionEvent[] {
    if (this.failure) throw this.failure
    if (this.pen.wanted) return []
    this.pen.wanted = true
    if (!this.pen.client) void this.enqueue('take the pen', () => this.lockPen()).catch(() => {})
    return []
  }

  /** Lets the pen go once everything appended is committed, unless it is taken again before. */
  releasePen(): Promise<void> {
    this.pen.wanted = false
    return this.enqueue('append', async () => {
      await this.drain()
      await this.unlockPenUnlessWanted()
    })
  }

  /** Cuts the stored log back to its first `count` events (a rewind, pen held). */
  truncate(count: number): Promise<void> {
    return this.enqueue('truncate', async () => {
      await this.drain()
      await this.cut(count)
    })
  }

  /** Writes what is pending (unless `keep` is false: the session is being deleted) and lets the pen go. */
  async close(keep: boolean): Promise<void> {
    if (!keep) this.pending = []
    this.pen.wanted = false
    try {
      await this.enqueue('close', async () => {
        await this.drain()
      })
    } finally {
      await this.unlockPen()
    }
  }

  private enqueue(op: string, task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(async () => {
      if (this.failure) throw this.failure
      try {
        await task()
      } catch (error) {
        const failure = databaseError(this.id, op, error)
        this.failure ??= failure
        this.env.fail(this.id, failure)
        throw failure
      }
    })
    this.queue = run.catch(() => {})
    return run
  }

  /** The connection writes go through: the pen's while it is held, else one of the pool's. */
  private async write<T>(work: (client: pg.ClientBase) => Promise<T>): Promise<T> {
    const pen = this.pen.client
    if (!pen) return this.env.db.transaction(work)
    if (this.pen.lost) throw lostPen(this.id, this.pen.lost)
    return inTransaction(pen, work)
  }

  private async create(initial: readonly SessionEvent[], base: BaseReference | undefined): Promise<void> {
    let reference: BaseReference | undefined
    if (base) {
      // Its parent's events through the boundary must be committed to be referenced; else copied.
      reference = await base.committed().then(
        () => base,
        () => undefined,
      )
    }
    const projection = this.projection()
    await this.env.db.transaction(async (client) => {
      let referenced = 0
      if (reference) {
        const parent = await client.query<{ last_seq: number }>(
          'SELECT last_seq FROM dsh_sessions WHERE id = $1 FOR SHARE',
          [reference.session],
        )
        if ((parent.rows[0]?.last_seq ?? 0) >= reference.length) referenced = reference.length
      }
      const made = await insertSession(
        client,
        this.header,
        initial.length,
        referenced > 0 && reference ? { session: reference.session, length: referenced } : undefined,
        projection,
      )
      if (!made) {
        throw new SessionError(
          SessionErrorCode.SESSION_ALREADY_EXISTS,
          `session ${this.id} already exists in the database`,
          {
            sessionId: this.id,
          },
        )
      }
      await insertEvents(client, this.id, initial.slice(referenced))
    })
  }

  /** The listing columns as of now: the live session's summary, else what the events say. */
  private projection(): Projection {
    const summary = this.env.summary(this.id)
    return summary ? projectionOf(summary) : fallbackProjection(this.header, this.last)
  }

  private async drain(): Promise<void> {
    this.drainQueued = false
    const batch = this.pending
    if (batch.length === 0) return
    this.pending = []
    // Taken in the same tick as the batch: the summary is the session's through the batch's end.
    const projection = this.projection()
    const expected = this.committed
    const next = (batch[batch.length - 1] as SessionEvent).seq
    if ((batch[0] as SessionEvent).seq !== expected + 1) {
      throw changedError(
        this.id,
        `the batch starts at seq ${(batch[0] as SessionEvent).seq}, after ${expected}`,
      )
    }
    await this.write(async (client) => {
      await advanceVersion(client, this.id, expected, next, projection)
      await insertEvents(client, this.id, batch)
    })
    this.committed = next
  }

  private async lockPen(): Promise<void> {
    if (this.pen.client || !this.pen.wanted) return
    const client = await this.env.db.connect()
    const pen: { wanted: boolean; client?: pg.PoolClient; lost?: Error } = this.pen
    const onError = (error: Error) => {
      pen.lost = error
      this.env.warn(`postgres: the connection holding the pen of ${this.id} failed: ${error.message}`)
    }
    client.on('error', onError)
    try {
      const { rows } = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${PEN_KEY}) AS ok`, [
        this.id,
      ])
      if (!rows[0]?.ok) {
        throw new SessionError(
          SessionErrorCode.SESSION_LOCKED,
          `session ${this.id} is being written by another host`,
          {
            sessionId: this.id,
          },
        )
      }
      pen.client = client
      // The expected version: nobody appended, rewound or deleted it since this host's view.
      const row = await sessionRow(client, this.id)
      if (!row) throw changedError(this.id, 'it was deleted')
      if (row.lastSeq !== this.committed) {
        throw changedError(
          this.id,
          `its stored log ends at seq ${row.lastSeq}, this host's view at ${this.committed}`,
        )
      }
    } catch (error) {
      await this.unlockPen()
      if (pen.client !== client) {
        client.off('error', onError)
        client.release(isConnectionLoss(error) ? (error as Error) : undefined)
      }
      throw error
    }
  }

  private async unlockPenUnlessWanted(): Promise<void> {
    if (!this.pen.wanted) await this.unlockPen()
  }

  private async unlockPen(): Promise<void> {
    const { client, lost } = this.pen
    if (!client) return
    this.pen = { wanted: this.pen.wanted }
    if (this.stale && !lost) await this.refreshProjection(client).catch(() => {})
    client.removeAllListeners('error')
    if (lost) {
      client.release(lost)
      return
    }
    try {
      await client.query(`SELECT pg_advisory_unlock(${PEN_KEY})`, [this.id])
      client.release()
    } catch (error) {
      // The connection is gone, and the lock with it.
      client.release(error as Error)
    }
  }

  private async refreshProjection(client: pg.ClientBase): Promise<void> {
    this.stale = false
    const projection = this.projection()
    await client.query(
      'UPDATE dsh_sessions SET updated_at = $2, title = $3, archived = $4, cost = $5::json WHERE id = $1',
      [this.id, projection.updatedAt, projection.title, projection.archived, projection.cost],
    )
  }

  /**
   * The rewind's cut, in one transaction: every session referencing events past `count` gets them
   * (the archived branch, the last and longest, by moving this session's rows to it with one
   * UPDATE; any other by a copy), then this session's rows past `count` go and its version becomes
   * `count`.
   */
  private async cut(count: number): Promise<void> {
    await this.write(async (client) => {
      const row = await sessionRow(client, this.id, true)
      if (!row) throw changedError(this.id, 'it was deleted')
      if (row.lastSeq !== this.committed)
        throw changedError(this.id, `its stored log ends at seq ${row.lastSeq}`)
      await client.query('SELECT 1 FROM dsh_sessions WHERE id = $1 FOR UPDATE', [this.id])
      const children = await referencingChildren(client, this.id, count)
      for (const [i, child] of children.entries()) {
        const own = Math.max(count, row.baseLength)
        if (i === children.length - 1 && child.baseLength > own) {
          // The inherited part past the cut is copied; this session's own rows move.
          await copyResolved(client, this.id, row, count + 1, own, child.id)
          await client.query(
            'UPDATE dsh_events SET session_id = $2 WHERE session_id = $1 AND seq > $3 AND seq <= $4',
            [this.id, child.id, own, child.baseLength],
          )
        } else {
          await copyResolved(client, this.id, row, count + 1, child.baseLength, child.id)
        }
        await client.query('UPDATE dsh_sessions SET base_session = $2, base_length = $3 WHERE id = $1', [
          child.id,
          count > 0 ? this.id : null,
          count,
        ])
      }
      await client.query('DELETE FROM dsh_events WHERE session_id = $1 AND seq > $2', [this.id, count])
      const baseLength = Math.min(row.baseLength, count)
      await client.query(
        'UPDATE dsh_sessions SET last_seq = $2, base_length = $3, base_session = CASE WHEN $3 = 0 THEN NULL ELSE base_session END WHERE id = $1',
        [this.id, count, baseLength],
      )
    })
    this.committed = count
    this.stale = true
  }
}

function lostPen(id: SessionId, cause: Error): SessionError {
  return new SessionError(
    SessionErrorCode.PERSISTENCE_FAILED,
    `session ${id}: the database connection holding its pen was lost (${cause.message}); nothing after the last acknowledged event was kept`,
    { sessionId: id, op: 'append' },
    { cause },
  )
}
