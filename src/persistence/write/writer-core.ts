import { SessionError, SessionErrorCode } from '../../session/errors.js'
import type { SessionId } from '../../session/ids.js'
import type { SessionEvent } from '../../session/log/events.js'
import { eventLine } from '../file-format.js'
import { persistenceError, writeAllFully, writeFullySync } from '../fs/file-io.js'
import type { OpenFile } from '../fs/file-system.js'
import { LineBuffer, type TakenLines } from './line-buffer.js'
import type { SlowDiskValve } from './slow-disk-valve.js'
import type { WriterEnv } from './writer-env.js'

/**
 * A batch of at most this many bytes is written synchronously: handing a write to libuv's thread
 * pool and taking its completion back costs the event loop about 8-10 µs, while a small `pwrite`
 * into the page cache takes 1-2 µs (64 KiB about 25 µs). Larger batches go to the thread pool, so
 * one write never holds the event loop long; so do all batches while the store's
 * {@link SlowDiskValve} finds the disk under pressure.
 */
const SYNC_BATCH_BYTES = 64 << 10
/** Written but not yet synced bytes that start an fdatasync before anyone asks (see `earlySync`). */
const EARLY_SYNC_BYTES = 256 << 10
/** What a background close or a queue link does with its failure: nothing (it was reported). */
export const noop = () => {}

/**
 * The state of one session file's writer (see {@link SessionWriter}) and its queue: appends
 * written in batches, early syncs, flushes, and the failure that stops it.
 */
export abstract class WriterCore {
  protected file: OpenFile | undefined
  protected size = 0
  protected synced = 0
  protected headerEnd = 0
  protected ends: number[] = []
  /** Serialized events not yet written. */
  protected readonly pending = new LineBuffer()
  protected drainQueued = false
  protected earlySyncQueued = false
  protected chain: Promise<unknown> = Promise.resolve()
  protected failure: SessionError | undefined
  protected unserializable = false
  /** The inode of the file this writer appends to: another one at its path means it was replaced. */
  protected ino = -1
  /** True while this process holds the session's lock file: the pen (see `takePen`). */
  protected lockHeld = false
  /** True while the store holds the pen; a release queued before it was taken again leaves the lock. */
  protected penWanted = false
  /**
   * How many times the pen was taken: a queued release lets the lock go only if the pen was not
   * taken again since it was queued (else what that later hold appends could be written after the
   * lock is gone, where another process may write too).
   */
  protected penTakes = 0

  constructor(
    readonly id: SessionId,
    protected readonly env: WriterEnv,
  ) {}

  protected get path(): string {
    return this.env.paths.sessionFile(this.id)
  }

  protected get lockPath(): string {
    return this.env.paths.lockFile(this.id)
  }

  protected changed(how: string): SessionError {
    return new SessionError(
      SessionErrorCode.SESSION_CHANGED,
      `session ${this.id}: its file ${how} by another process since this process opened it: load it again`,
      { sessionId: this.id, path: this.path },
    )
  }

  protected enqueue<T>(op: () => Promise<T>): Promise<T> {
    const result = this.chain.then(op)
    this.chain = result.catch(noop)
    return result
  }

  /** Takes one appended event; it is written with the next batch. */
  append(event: SessionEvent): void {
    if (this.failure || this.unserializable) return
    let line: string
    try {
      line = eventLine(event)
    } catch (error) {
      // The store only admits events that serialize (see MAX_JSON_DEPTH); should one still fail,
      // writing later events after a gap would make the file unloadable: stop here instead.
      // Lines before it are still written; nothing after it is.
      this.unserializable = true
      void this.enqueue(async () => {
        await this.drain()
        this.failWith(`serialize event ${event.seq} for`, this.path, error)
      })
      return
    }
    this.pending.add(line)
    if (!this.drainQueued) {
      this.drainQueued = true
      void this.enqueue(() => this.drain())
    }
  }

  protected async drain(): Promise<void> {
    this.drainQueued = false
    const file = this.file
    if (this.pending.isEmpty || this.failure || !file) return
    if (!this.lockHeld) {
      this.failWith('write without the pen to', this.path, new Error('the pen is not held'))
      return
    }
    const batch = this.takeBatch()
    try {
      const started = performance.now()
      if (batch.bytes <= SYNC_BATCH_BYTES && this.env.valve.syncAllowed(started)) {
        writeFullySync(file, joined(batch.pieces), this.size)
        this.env.valve.wrote(started, performance.now())
      } else {
        await writeAllFully(file, batch.pieces, this.size)
      }
    } catch (error) {
      // Not cut back here: a reader without the pen may have taken in the batch's complete lines
      // already. What is torn is cut by the next pen taken (or open), proven from the file then.
      this.failWith('write', this.path, error)
      return
    }
    this.batchWritten(batch)
  }

  /** The pending lines, as the pieces of one write. */
  protected takeBatch(): TakenLines {
    return this.pending.take()
  }

  /** Records where the batch's lines end; starts an early sync once much is unsynced. */
  protected batchWritten(batch: TakenLines): void {
    let end = this.size
    for (const length of batch.lengths) {
      end += length
      this.ends.push(end)
    }
    this.size = end
    if (this.size - this.synced >= EARLY_SYNC_BYTES && !this.earlySyncQueued) {
      this.earlySyncQueued = true
      void this.enqueue(() => this.earlySync())
    }
  }

  /**
   * An fdatasync nobody waits for, once much was written since the last: a long turn then finds
   * little left to sync when its end is acknowledged. It promises nothing (flush still syncs
   * whatever is left); a failure is reported like any other and makes the session read-only.
   */
  protected async earlySync(): Promise<void> {
    this.earlySyncQueued = false
    if (this.failure || !this.file || this.synced === this.size) return
    const size = this.size
    try {
      await this.file.datasync()
    } catch (error) {
      this.failWith('fdatasync', this.path, error)
      return
    }
    this.synced = size
  }

  /** Resolves when every event appended so far is written and fdatasynced; rejects if not. */
  flush(): Promise<void> {
    return this.enqueue(async () => {
      await this.drain()
      if (this.failure) throw this.failure
      if (!this.file || this.synced === this.size) return
      const size = this.size
      try {
        await this.file.datasync()
      } catch (error) {
        this.failWith('fdatasync', this.path, error)
        throw this.failure
      }
      this.synced = size
    })
  }

  protected failWith(op: string, path: string, error: unknown): void {
    this.fail(persistenceError(this.id, op, path, error))
  }

  /** Stops the writer: the first failure is reported once and rejects every later flush. */
  protected fail(error: SessionError): void {
    if (this.failure) return
    this.failure = error
    this.pending.clear()
    this.env.fail(this.id, this.failure)
  }
}

/** The pieces as one buffer (the piece itself when there is one). */
function joined(pieces: readonly Buffer[]): Buffer {
  return pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces)
}
