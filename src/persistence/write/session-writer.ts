import { SessionError } from '../../session/errors.js'
import type { SessionHeader } from '../../session/header.js'
import type { SessionId } from '../../session/ids.js'
import type { SessionEvent } from '../../session/log/events.js'
import { eventLine } from '../file-format.js'
import { persistenceError } from '../fs/file-io.js'
import type { OpenFile } from '../fs/file-system.js'
import type { SessionFileContents } from '../read/read-session-file.js'
import { releaseLock } from '../session-lock.js'
import { createSessionFile } from './create-file.js'
import type { PrefixSnapshot } from './prefix-copy.js'
import { replaceWithPrefix } from './replace-file.js'
import { failedAfterCommit, type LinkedBranch, rewindByLink } from './rewind-link.js'
import { noop } from './writer-core.js'
import type { WriterEnv } from './writer-env.js'
import { WriterPen } from './writer-pen.js'

/** A session file `open` read: the descriptor, what it holds, and its inode. */
interface OpenedFile {
  readonly file: OpenFile
  readonly contents: SessionFileContents
  readonly ino: number
}

/**
 * The one writer of one session file. Every operation (create, appends, fork snapshots, flush,
 * close) runs in order through a promise queue. Appends are written in batches as the queue gets
 * to them (one `pwritev` per batch: a process crash loses nothing written); `flush` writes what is
 * pending and fdatasyncs once for everything before it (group commit). After a failed write or
 * fsync the writer stops, reports the error once and rejects every flush; what a failed append
 * tore is cut by the next writer to take the pen. Nothing is written, and nothing cut, without the
 * pen, and nothing is ever cut before the end of the last complete line of the file (see `truncate`).
 */
export class SessionWriter extends WriterPen {
  /**
   * A writer for a file `open` just read (inode `ino`): appends go after its last event, once the
   * pen is taken. It holds no lock.
   */
  static opened(id: SessionId, env: WriterEnv, opened: OpenedFile): SessionWriter {
    const { file, contents, ino } = opened
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
    const created = await createSessionFile(this.env, this.id, { header, seed, prefix }, (op, path, error) =>
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
        replaced = await rewindByLink(this.env, this.id, view, { markerLine, branch })
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
}

export type { WriterEnv } from './writer-env.js'
