import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs'
import { SessionError, SessionErrorCode } from '../../session/errors.js'
import type { SessionHeader } from '../../session/header.js'
import type { SessionId } from '../../session/ids.js'
import type { SessionEvent } from '../../session/log/events.js'
import { eventLine } from '../file-format.js'
import { persistenceError, writeAllFully, writeFullySync } from '../fs/file-io.js'
import type { OpenFile } from '../fs/file-system.js'
import { type AppendedLines, readAppended } from '../read/read-appended.js'
import type { SessionFileContents } from '../read/read-session-file.js'
import { releaseLock, takeLock } from '../session-lock.js'
import { createSessionFile } from './create-file.js'
import { LineBuffer, type TakenLines } from './line-buffer.js'
import type { PrefixSnapshot } from './prefix-copy.js'
import { replaceWithPrefix } from './replace-file.js'
import { failedAfterCommit, type LinkedBranch, rewindByLink } from './rewind-link.js'
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
const noop = () => {}

/**
 * The one writer of one session file. Every operation (create, appends, fork snapshots, flush,
 * close) runs in order through a promise queue. Appends are written in batches as the queue gets
 * to them (one `pwritev` per batch: a process crash loses nothing written); `flush` writes what is
 * pending and fdatasyncs once for everything before it (group commit). After a failed write or
 * fsync the writer stops, reports the error once and rejects every flush; what a failed append
 * tore is cut by the next writer to take the pen. Nothing is written, and nothing cut, without the
 * pen, and nothing is ever cut before the end of the last complete line of the file (see `truncate`).
 */
export class SessionWriter {
  private file: OpenFile | undefined
  private size = 0
  private synced = 0
  private headerEnd = 0
  private ends: number[] = []
  /** Serialized events not yet written. */
  private readonly pending = new LineBuffer()
  private drainQueued = false
  private earlySyncQueued = false
  private chain: Promise<unknown> = Promise.resolve()
  private failure: SessionError | undefined
  private unserializable = false
  /** The inode of the file this writer appends to: another one at its path means it was replaced. */
  private ino = -1
  /** True while this process holds the session's lock file: the pen (see `takePen`). */
  private lockHeld = false
  /** True while the store holds the pen; a release queued before it was taken again leaves the lock. */
  private penWanted = false
  /**
   * How many times the pen was taken: a queued release lets the lock go only if the pen was not
   * taken again since it was queued (else what that later hold appends could be written after the
   * lock is gone, where another process may write too).
   */
  private penTakes = 0

  constructor(
    readonly id: SessionId,
    private readonly env: WriterEnv,
  ) {}

  private get path(): string {
    return this.env.paths.sessionFile(this.id)
  }

  private get lockPath(): string {
    return this.env.paths.lockFile(this.id)
  }

  /**
   * A writer for a file `open` just read (inode `ino`): appends go after its last event, once the
   * pen is taken. It holds no lock.
   */
  static opened(
    id: SessionId,
    env: WriterEnv,
    file: OpenFile,
    contents: SessionFileContents,
    ino: number,
  ): SessionWriter {
    const writer = new SessionWriter(id, env)
    writer.file = file
    writer.size = contents.size
    writer.synced = contents.size
    writer.headerEnd = contents.headerEnd
    writer.ends = contents.ends
    writer.ino = ino
    return writer
  }

  /** A writer for a session being created, holding the lock `created` took (the pen, let go once created). */
  static creating(id: SessionId, env: WriterEnv): SessionWriter {
    const writer = new SessionWriter(id, env)
    writer.lockHeld = true
    return writer
  }

  /**
   * Takes the pen: the lock file (unless this process holds it still), then the expected-version
   * check, one `lstat` of the path: the same inode, and the size this writer's view ends at. What
   * other processes appended since is read (synchronously), the view moved past it, and the
   * events returned; a torn tail a dead writer left is cut away before anything is written. Throws
   * `SESSION_LOCKED` while another live process holds the lock, `SESSION_CHANGED` when the file was
   * replaced, removed or shortened, `CORRUPT_SESSION` for a bad line; the lock is let go then.
   */
  takePen(): SessionEvent[] {
    if (this.failure) throw this.failure
    this.penTakes++
    if (this.lockHeld) {
      this.penWanted = true
      return []
    }
    takeLock(this.lockPath, this.id)
    this.lockHeld = true
    try {
      const appended = this.catchUp(true)
      this.penWanted = true
      return appended
    } catch (error) {
      this.lockHeld = false
      releaseLock(this.lockPath)
      throw error
    }
  }

  /**
   * Queues the pen's release: once everything appended before is written and fdatasynced, the lock
   * is let go, unless the pen was taken again meanwhile. A failed write or sync was reported (the
   * session is read-only); the lock is let go all the same.
   */
  releasePen(): Promise<void> {
    this.penWanted = false
    const takes = this.penTakes
    const stillMine = () => !this.penWanted && this.lockHeld && this.penTakes === takes
    return this.enqueue(async () => {
      if (!stillMine()) return
      await this.drain()
      if (this.file && !this.failure && this.synced < this.size) {
        const size = this.size
        try {
          await this.file.datasync()
          this.synced = size
        } catch (error) {
          this.failWith('fdatasync', this.path, error)
        }
      }
      if (!stillMine()) return
      this.lockHeld = false
      releaseLock(this.lockPath)
    })
  }

  /**
   * Without the pen: the complete lines other processes appended since this view, taken into it
   * (nothing repaired: bytes after them may be a line being written). [] while this process holds
   * the pen, whose writes are its own.
   */
  refresh(): SessionEvent[] {
    if (this.lockHeld || this.failure || !this.file) return []
    return this.catchUp(false)
  }

  private catchUp(repair: boolean): SessionEvent[] {
    const file = this.file
    if (!file || this.failure) return []
    let stats: ReturnType<typeof lstatSync>
    try {
      stats = lstatSync(this.path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw this.changed('was removed')
      throw persistenceError(this.id, 'stat', this.path, error)
    }
    if (stats.ino !== this.ino || !stats.isFile()) throw this.changed('was replaced')
    if (stats.size === this.size) return []
    if (stats.size < this.size)
      throw this.changed(`was cut to ${stats.size} bytes (this process had ${this.size})`)
    const found = this.readAppended()
    for (const end of found.ends) this.ends.push(end)
    if (found.ends.length > 0) {
      // Their writer synced them, or died: nothing here to sync unless this process writes (an
      // fdatasync then covers the whole file).
      const end = found.ends[found.ends.length - 1] as number
      if (this.synced === this.size) this.synced = end
      this.size = end
    }
    const cut = found.tornAt
    if (repair && cut !== undefined) {
      this.env.warn(
        `${this.path}: torn tail left by a writer that died, truncating ${found.end - cut} bytes at offset ${cut}`,
      )
      // Queued now, before any append of this pen can be written there.
      void this.enqueue(async () => {
        try {
          await file.truncate(cut)
          await file.datasync()
        } catch (error) {
          this.failWith('truncate', this.path, error)
        }
      })
    }
    return found.events
  }

  /**
   * What follows this view in the file, read through a descriptor of its own (the writer's may be
   * write-only), which must be the same file (not followed through a symlink).
   */
  private readAppended(): AppendedLines {
    let fd: number | undefined
    try {
      fd = openSync(this.path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
      if (fstatSync(fd).ino !== this.ino) throw this.changed('was replaced')
      const file = {
        readSync: (b: Uint8Array, o: number, l: number, p: number) => readSync(fd as number, b, o, l, p),
      }
      if (!endsALine(file, this.size)) throw this.changed('no longer has a line end where this view ends')
      return readAppended(file, this.path, this.size, this.ends.length + 1)
    } catch (error) {
      throw persistenceError(this.id, 'read', this.path, error)
    } finally {
      if (fd !== undefined) closeSync(fd)
    }
  }

  private changed(how: string): SessionError {
    return new SessionError(
      SessionErrorCode.SESSION_CHANGED,
      `session ${this.id}: its file ${how} by another process since this process opened it: load it again`,
      { sessionId: this.id, path: this.path },
    )
  }

  private enqueue<T>(op: () => Promise<T>): Promise<T> {
    const result = this.chain.then(op)
    this.chain = result.catch(noop)
    return result
  }

  /**
   * Queues the creation of the file: header and seed written to a temp file (O_EXCL), fdatasynced,
   * renamed into place, directory fsynced. The seed comes from `prefix` (a byte range of the
   * parent's file) when given, else is serialized from `seed`.
   */
  create(
    header: SessionHeader,
    seed: readonly SessionEvent[],
    prefix?: Promise<PrefixSnapshot | undefined>,
  ): void {
    void this.enqueue(() => this.createFile(header, seed, prefix))
  }

  private async createFile(
    header: SessionHeader,
    seed: readonly SessionEvent[],
    prefix: Promise<PrefixSnapshot | undefined> | undefined,
  ): Promise<void> {
    const created = await createSessionFile(this.env, this.id, header, seed, prefix, (op, path, error) =>
      this.failWith(op, path, error),
    )
    if (!created) return
    this.file = created.file
    this.ino = created.file.opened?.ino ?? (await created.file.stat()).ino
    this.headerEnd = created.headerEnd
    this.ends = created.ends
    this.size =
      created.ends.length > 0 ? (created.ends[created.ends.length - 1] as number) : created.headerEnd
    this.synced = this.size
  }

  /**
   * Queues a snapshot of this session's first `count` events for a fork child: everything appended
   * before is written first, and the range is fixed then, so the child gets exactly events 1..count.
   * Resolves undefined when this writer has no sound file (the child then serializes from memory).
   */
  snapshotPrefix(count: number): Promise<PrefixSnapshot | undefined> {
    return this.enqueue(async () => {
      await this.drain()
      if (this.failure || !this.file || this.ends.length < count) return undefined
      const file = await this.env.fs.open(this.path, 'r')
      const end = count > 0 ? (this.ends[count - 1] as number) : this.headerEnd
      // Another process replaced the file (a rewind): its bytes are not this view's.
      if ((file.opened ?? (await file.stat())).ino !== this.ino) {
        await file.close()
        return undefined
      }
      return { file, start: this.headerEnd, end, ends: this.ends.slice(0, count) }
    }).catch(() => undefined)
  }

  /**
   * Queues cutting the session back to its first `count` events (a rewind), which must hold the
   * pen: everything pending is written first, then the file is replaced by a copy of its bytes
   * through event `count` (`replaceWithPrefix`: temp file, fdatasync, rename, directory fsync),
   * never cut in place, so no other process's view of the file can meet bytes it did not read at
   * an offset it did (issue 34: such a view took them for a torn tail, and cut into them). A crash
   * leaves the old file or the new one, both whole logs. Rejects (and the session becomes
   * read-only) when that failed.
   */
  truncate(count: number): Promise<void> {
    return this.enqueue(async () => {
      await this.drain()
      if (this.failure) throw this.failure
      if (!this.file || this.ends.length < count) return
      if (!this.lockHeld) {
        this.failWith('cut without the pen', this.path, new Error('the pen is not held'))
        throw this.failure
      }
      const size = count > 0 ? (this.ends[count - 1] as number) : this.headerEnd
      let replaced: OpenFile
      try {
        replaced = await replaceWithPrefix(this.env, this.id, this.ino, size)
      } catch (error) {
        this.fail(error instanceof SessionError ? error : persistenceError(this.id, 'cut', this.path, error))
        throw this.failure
      }
      const old = this.file
      this.file = replaced
      this.ino = replaced.opened?.ino ?? (await replaced.stat()).ino
      await old.close().catch(noop)
      this.ends.length = count
      this.size = size
      this.synced = size
    })
  }

  /**
   * Queues a rewind at the cost of the kept prefix (`rewindByLink`), which must hold the pen:
   * everything pending is written first; then the old file becomes `branch` (by a link, its tail
   * appended) and this session's file is replaced by its first `count` events' bytes and
   * `marker`'s line. Resolves false (nothing done) when this writer has no file; rejects when it
   * failed: before the commit the file is unchanged (the session stays writable), after it the
   * session becomes read-only (load it again).
   */
  rewind(count: number, marker: SessionEvent, branch: LinkedBranch): Promise<boolean> {
    return this.enqueue(async () => {
      await this.drain()
      if (this.failure) throw this.failure
      if (!this.file || this.ends.length < count) return false
      if (!this.lockHeld) {
        this.failWith('rewind without the pen', this.path, new Error('the pen is not held'))
        throw this.failure
      }
      const keptSize = count > 0 ? (this.ends[count - 1] as number) : this.headerEnd
      const markerLine = `${eventLine(marker)}\n`
      const old = this.file
      const view = { file: old, ino: this.ino, size: this.size, keptSize }
      let replaced: OpenFile
      try {
        replaced = await rewindByLink(this.env, this.id, view, markerLine, branch)
      } catch (error) {
        const failure =
          error instanceof SessionError ? error : persistenceError(this.id, 'rewind', this.path, error)
        if (failedAfterCommit(error)) this.fail(failure)
        throw failure
      }
      this.file = replaced
      this.ino = replaced.opened?.ino ?? (await replaced.stat()).ino
      // The branch's now (its tail written): closed in the background, nothing waits on it.
      void old.close().catch(noop)
      this.ends.length = count
      this.size = keptSize + Buffer.byteLength(markerLine)
      this.ends.push(this.size)
      this.synced = this.size
      return true
    })
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

  private async drain(): Promise<void> {
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
  private takeBatch(): TakenLines {
    return this.pending.take()
  }

  /** Records where the batch's lines end; starts an early sync once much is unsynced. */
  private batchWritten(batch: TakenLines): void {
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
  private async earlySync(): Promise<void> {
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

  /**
   * Queues the end: writes what is pending, fdatasyncs (when `sync`), closes the file and releases
   * the lock. Rejects, after releasing, with a write or fsync error that happened while closing
   * (one reported before was already rejected by `flush`).
   */
  close(sync: boolean): Promise<void> {
    return this.enqueue(async () => {
      const reported = this.failure
      try {
        if (sync) {
          await this.drain()
          if (this.file && !this.failure && this.synced < this.size) {
            await this.file.datasync().catch((error) => this.failWith('fdatasync', this.path, error))
          }
        }
      } finally {
        await this.file?.close().catch(noop)
        this.file = undefined
        this.lockHeld = false
        this.penWanted = false
        releaseLock(this.lockPath)
      }
      if (this.failure && this.failure !== reported) throw this.failure
    })
  }

  private failWith(op: string, path: string, error: unknown): void {
    this.fail(persistenceError(this.id, op, path, error))
  }

  /** Stops the writer: the first failure is reported once and rejects every later flush. */
  private fail(error: SessionError): void {
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

/**
 * Whether the byte before `offset` is a newline (or `offset` is 0): a view of the file ending there
 * still ends at a line end. Cheap proof against a view that another process's cut made stale.
 */
function endsALine(file: Pick<OpenFile, 'readSync'>, offset: number): boolean {
  if (offset === 0) return true
  const byte = Buffer.alloc(1)
  return file.readSync(byte, 0, 1, offset - 1) === 1 && byte[0] === 0x0a
}

export type { WriterEnv } from './writer-env.js'
