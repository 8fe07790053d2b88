import type pg from 'pg'
import { SessionError, SessionErrorCode } from '../../../session/errors.js'
import type { SessionHeader } from '../../../session/header.js'
import type { SessionId } from '../../../session/ids.js'
import type { SessionEvent } from '../../../session/log/events.js'
import { announce } from '../live/notices.js'
import { SessionPen } from '../pens/pen-lock.js'
import { inTransaction } from '../pool.js'
import { StoredView } from '../reads/catch-up.js'
import { sessionRow } from '../reads/reads.js'
import {
  advanceVersion,
  changedError,
  databaseError,
  fallbackProjection,
  insertEvents,
  type Projection,
  projectionOf,
  updateListing,
} from '../rows.js'
import { createRows } from './create.js'
import { cutRows } from './cut.js'
import { WriteQueue } from './write-queue.js'
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
  private readonly queue: WriteQueue
  private pending: SessionEvent[] = []
  private drainQueued = false
  /** The pen: wanted by the store, and the advisory lock while it is taken. */
  private readonly pen: SessionPen
  /** A rewind cut the log: the listing columns are refreshed when the pen is let go. */
  private stale = false
  /** Where this host's view of the stored log ends, and what others appended past it. */
  private readonly stored: StoredView
  /** A poll was skipped while `acquirePen` tried the lock: if the try fails, look again. */
  private skippedPoll = false
  readonly id: SessionId

  private constructor(
    private readonly env: WriterEnv,
    private readonly header: SessionHeader,
    committed: number,
    private last: SessionEvent | undefined,
  ) {
    this.id = header.id
    this.queue = new WriteQueue(env.ready, header.id, (failure) => env.fail(header.id, failure))
    this.stored = new StoredView(committed, last)
    this.pen = new SessionPen(env.db, header.id, env.warn)
  }

  /** The seq this host's view of the stored log ends at (what it read or committed). */
  get view(): number {
    return this.stored.seq
  }

  /** The writer of a session being created: its header and `initial` events are written first. */
  static creating(
    env: WriterEnv,
    header: SessionHeader,
    initial: readonly SessionEvent[],
    base: BaseReference | undefined,
  ): PgSessionWriter {
    const writer = new PgSessionWriter(env, header, initial.length, initial[initial.length - 1])
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
    return new PgSessionWriter(env, header, lastSeq, last)
  }

  append(event: SessionEvent): void {
    if (this.queue.failure) return
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
   * written. Returns what other hosts appended that was read already (see `poll`).
   */
  takePen(): SessionEvent[] {
    if (this.queue.failure) throw this.queue.failure
    if (this.stored.changed) throw this.stored.changed
    if (this.pen.wanted) return []
    this.pen.wanted = true
    if (!this.pen.isHeld) void this.enqueue('take the pen', () => this.lockPen(false)).catch(() => {})
    return this.stored.take()
  }

  /**
   * Takes the pen and resolves once it is held: the advisory lock taken, then what other hosts
   * appended since this host's view read (resolved, in order, for the store to take in). Rejects
   * with `SESSION_LOCKED` (another host holds it) or `SESSION_CHANGED` (the stored log no longer
   * extends this view) without failing the session: nothing was written, the pen is not held.
   */
  acquirePen(): Promise<SessionEvent[]> {
    if (this.queue.failure) return Promise.reject(this.queue.failure)
    if (this.stored.changed) return Promise.reject(this.stored.changed)
    const held = this.pen.wanted
    this.pen.wanted = true
    if (held) return Promise.resolve(this.stored.take())
    return this.queue.serial(async () => {
      try {
        await this.lockPen(true)
      } catch (error) {
        this.pen.wanted = false
        // Another host's write announced during the try: this host's clients must see it.
        if (this.skippedPoll) this.env.lookAgain(this.id)
        this.skippedPoll = false
        throw databaseError(this.id, 'take the pen', error)
      }
      this.skippedPoll = false
      return this.stored.take()
    })
  }

  /** What other hosts appended that was read since the last call (see `poll`); [] under the pen. */
  refresh(): SessionEvent[] {
    if (this.stored.changed) throw this.stored.changed
    if (this.pen.busy) return []
    return this.stored.take()
  }

  /**
   * Reads what other hosts appended past this host's view (unless this host holds or wants the
   * pen: then nobody else appends), in the queue's order. Resolves true when there is something
   * for `refresh` (events, or the stored log replaced or removed). A database error only delays it
   * (the next notice or check looks again): it never fails the session.
   */
  poll(): Promise<boolean> {
    return this.queue.serial(async () => {
      if (this.pen.wanted && !this.pen.isHeld) this.skippedPoll = true
      if (this.queue.failure || this.stored.changed || this.pen.busy) return false
      try {
        await this.catchUp((work) => this.env.db.snapshot(work))
      } catch (error) {
        if (!(error instanceof SessionError) || error.code !== SessionErrorCode.SESSION_CHANGED) throw error
        this.stored.changed = error
      }
      return this.stored.news
    })
  }

  /** Reads what others appended through `within` (a transaction), for the store. */
  private async catchUp(
    within: (
      work: (client: pg.ClientBase) => Promise<SessionEvent | undefined>,
    ) => Promise<SessionEvent | undefined>,
  ): Promise<void> {
    const last = await within((client) => this.stored.catchUp(client, this.id))
    if (last) this.last = last
  }

  /** Lets the pen go once everything appended is committed, unless it is taken again before. */
  releasePen(): Promise<void> {
    this.pen.wanted = false
    return this.enqueue('append', async () => {
      await this.drain()
      if (!this.pen.wanted) await this.unlockPen()
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
      await this.enqueue('close', () => this.drain())
    } finally {
      await this.unlockPen()
    }
  }

  private enqueue(op: string, task: () => Promise<void>): Promise<void> {
    return this.queue.run(op, task)
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
    await this.env.db.transaction((client) =>
      createRows(client, { header: this.header, initial, reference, projection }),
    )
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
    const expected = this.stored.seq
    const next = (batch[batch.length - 1] as SessionEvent).seq
    if ((batch[0] as SessionEvent).seq !== expected + 1) {
      throw changedError(
        this.id,
        `the batch starts at seq ${(batch[0] as SessionEvent).seq}, after ${expected}`,
      )
    }
    await this.pen.write(async (client) => {
      await advanceVersion(client, this.id, { expected, next }, projection)
      await insertEvents(client, this.id, batch)
      await announce(client, this.id, next)
    })
    this.stored.committed(next, batch[batch.length - 1])
  }

  /**
   * The advisory lock on a connection of its own, then the expected version: with `catchUp`, what
   * others appended since this view is read (kept for the store); without, a stored log past this
   * view is `SESSION_CHANGED`.
   */
  private lockPen(catchUp: boolean): Promise<void> {
    return this.pen.lock(async (client) => {
      if (catchUp) {
        await this.catchUp((work) => inTransaction(client, work))
        return
      }
      // The expected version: nobody appended, rewound or deleted it since this host's view.
      const row = await sessionRow(client, this.id)
      if (!row) throw changedError(this.id, 'it was deleted')
      if (row.lastSeq !== this.stored.seq) {
        throw changedError(
          this.id,
          `its stored log ends at seq ${row.lastSeq}, this host's view at ${this.stored.seq}`,
        )
      }
    })
  }

  /** Lets the pen go; after a rewind, the listing columns are refreshed first. */
  private unlockPen(): Promise<void> {
    if (!this.stale) return this.pen.unlock()
    return this.pen.unlock(async (client) => {
      this.stale = false
      await updateListing(client, this.id, this.projection())
    })
  }

  /** The rewind's cut (see `cutRows`), announced to the other hosts. */
  private async cut(count: number): Promise<void> {
    await this.pen.write(async (client) => {
      await cutRows(client, this.id, this.stored.seq, count)
      await announce(client, this.id, count)
    })
    this.stored.committed(count, undefined)
    this.stale = true
  }
}
