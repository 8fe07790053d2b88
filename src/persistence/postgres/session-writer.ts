import type pg from 'pg'
import { SessionError, SessionErrorCode } from '../../session/errors.js'
import type { SessionHeader } from '../../session/header.js'
import type { SessionId } from '../../session/ids.js'
import type { SessionEvent } from '../../session/log/events.js'
import { appendedSince } from './catch-up.js'
import { createRows } from './create.js'
import { cutRows } from './cut.js'
import { announce } from './notices.js'
import { type HeldPen, lockPen, lostPen, unlockPen } from './pen-lock.js'
import { inTransaction } from './pool.js'
import { sessionRow } from './reads.js'
import {
  advanceVersion,
  changedError,
  databaseError,
  fallbackProjection,
  insertEvents,
  type Projection,
  projectionOf,
} from './rows.js'
import type { BaseReference, WriterEnv } from './writer-env.js'

export type { BaseReference, WriterEnv } from './writer-env.js'

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
  private pen: { wanted: boolean; held?: HeldPen } = { wanted: false }
  /** A rewind cut the log: the listing columns are refreshed when the pen is let go. */
  private stale = false
  /** The last committed event (undefined after a cut): a catch-up checks the stored one is it. */
  private lastCommitted: SessionEvent | undefined
  /** Events other hosts appended, read (`committed` counts them) and not yet handed to the store. */
  private fetched: SessionEvent[] = []
  /** Another host replaced or removed the stored log: what `refresh` reports. */
  private changed: SessionError | undefined

  private constructor(
    readonly id: SessionId,
    private readonly env: WriterEnv,
    /** The seq of the last committed event: the version this writer expects the row to have. */
    private committed: number,
    private readonly header: SessionHeader,
    private last: SessionEvent | undefined,
  ) {
    this.queue = env.ready
    this.lastCommitted = last
  }

  /** The seq this host's view of the stored log ends at (what it read or committed). */
  get view(): number {
    return this.committed
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
    if (this.changed) throw this.changed
    if (this.pen.wanted) return []
    this.pen.wanted = true
    if (!this.pen.held) void this.enqueue('take the pen', () => this.lockPen(false)).catch(() => {})
    return this.fetched.splice(0)
  }

  /**
   * Takes the pen and resolves once it is held: the advisory lock taken, then what other hosts
   * appended since this host's view read (resolved, in order, for the store to take in). Rejects
   * with `SESSION_LOCKED` (another host holds it) or `SESSION_CHANGED` (the stored log no longer
   * extends this view) without failing the session: nothing was written, the pen is not held.
   */
  acquirePen(): Promise<SessionEvent[]> {
    if (this.failure) return Promise.reject(this.failure)
    if (this.changed) return Promise.reject(this.changed)
    const held = this.pen.wanted
    this.pen.wanted = true
    if (held) return Promise.resolve(this.fetched.splice(0))
    return this.serial(async () => {
      try {
        await this.lockPen(true)
      } catch (error) {
        this.pen.wanted = false
        throw databaseError(this.id, 'take the pen', error)
      }
      return this.fetched.splice(0)
    })
  }

  /** What other hosts appended that was read since the last call (see `poll`); [] under the pen. */
  refresh(): SessionEvent[] {
    if (this.changed) throw this.changed
    if (this.pen.wanted || this.pen.held) return []
    return this.fetched.splice(0)
  }

  /**
   * Reads what other hosts appended past this host's view (unless this host holds or wants the
   * pen: then nobody else appends), in the queue's order. Resolves true when there is something
   * for `refresh` (events, or the stored log replaced or removed). A database error only delays it
   * (the next notice or check looks again): it never fails the session.
   */
  poll(): Promise<boolean> {
    return this.serial(async () => {
      if (this.failure || this.changed || this.pen.wanted || this.pen.held) return false
      try {
        await this.catchUp(() => this.env.db.snapshot(this.read))
      } catch (error) {
        if (!(error instanceof SessionError) || error.code !== SessionErrorCode.SESSION_CHANGED) throw error
        this.changed = error
      }
      return this.changed !== undefined || this.fetched.length > 0
    })
  }

  private readonly read = (client: pg.ClientBase) =>
    appendedSince(client, this.id, { seq: this.committed, last: this.lastCommitted })

  /** Reads what others appended (`read`), keeping it for the store and moving the view past it. */
  private async catchUp(read: () => Promise<SessionEvent[]>): Promise<void> {
    const events = await read()
    const last = events[events.length - 1]
    if (!last) return
    this.fetched.push(...events)
    this.committed = last.seq
    this.lastCommitted = last
    this.last = last
  }

  /** Runs `task` in the queue's order without failing the session when it fails. */
  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(() => {
      if (this.failure) throw this.failure
      return task()
    })
    this.queue = run.then(
      () => {},
      () => {},
    )
    return run
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
    const { held } = this.pen
    if (!held) return this.env.db.transaction(work)
    if (held.lost) throw lostPen(this.id, held.lost)
    return inTransaction(held.client, work)
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
    await this.env.db.transaction((client) => createRows(client, this.header, initial, reference, projection))
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
      await announce(client, this.id, next)
    })
    this.committed = next
    this.lastCommitted = batch[batch.length - 1]
  }

  /**
   * The advisory lock on a connection of its own, then the expected version: with `catchUp`, what
   * others appended since this view is read (kept for the store); without, a stored log past this
   * view is `SESSION_CHANGED`.
   */
  private async lockPen(catchUp: boolean): Promise<void> {
    if (this.pen.held || !this.pen.wanted) return
    const held = await lockPen(this.env.db, this.id, this.env.warn)
    this.pen.held = held
    try {
      if (catchUp) {
        await this.catchUp(() => inTransaction(held.client, this.read))
        return
      }
      // The expected version: nobody appended, rewound or deleted it since this host's view.
      const row = await sessionRow(held.client, this.id)
      if (!row) throw changedError(this.id, 'it was deleted')
      if (row.lastSeq !== this.committed) {
        throw changedError(
          this.id,
          `its stored log ends at seq ${row.lastSeq}, this host's view at ${this.committed}`,
        )
      }
    } catch (error) {
      await this.unlockPen()
      throw error
    }
  }

  private async unlockPenUnlessWanted(): Promise<void> {
    if (!this.pen.wanted) await this.unlockPen()
  }

  private async unlockPen(): Promise<void> {
    const { held } = this.pen
    if (!held) return
    this.pen = { wanted: this.pen.wanted }
    if (this.stale && !held.lost) await this.refreshProjection(held.client).catch(() => {})
    await unlockPen(held, this.id)
  }

  private async refreshProjection(client: pg.ClientBase): Promise<void> {
    this.stale = false
    const projection = this.projection()
    await client.query(
      'UPDATE dsh_sessions SET updated_at = $2, title = $3, archived = $4, cost = $5::json WHERE id = $1',
      [this.id, projection.updatedAt, projection.title, projection.archived, projection.cost],
    )
  }

  /** The rewind's cut (see `cutRows`), announced to the other hosts. */
  private async cut(count: number): Promise<void> {
    await this.write(async (client) => {
      await cutRows(client, this.id, this.committed, count)
      await announce(client, this.id, count)
    })
    this.committed = count
    this.lastCommitted = undefined
    this.stale = true
  }
}
