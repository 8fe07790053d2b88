import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs'
import type { SessionEvent } from '../../session/log/events.js'
import { persistenceError } from '../fs/file-io.js'
import type { OpenFile } from '../fs/file-system.js'
import { type AppendedLines, readAppended } from '../read/read-appended.js'
import { releaseLock, takeLock } from '../session-lock.js'
import { WriterCore } from './writer-core.js'

/**
 * The pen of one session file's writer (see {@link SessionWriter}): its lock file, taken and let
 * go, and catching up on what other processes appended since this writer's view.
 */
export abstract class WriterPen extends WriterCore {
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
