import type { SessionId } from '../../session/ids.js'
import { boardSessionOf } from '../board/session-board.js'
import { streamSessionOf } from '../board/stream-files.js'
import type { DirectoryWatch, FileStat, FileSystem } from '../fs/file-system.js'
import { StorePaths } from '../store-paths.js'

/** Without a directory watch, each watched session file is stat'ed this often. */
export const POLL_MS = 100
/** With a directory watch, each watched file is still stat'ed this often, should an event be lost. */
export const SAFETY_POLL_MS = 2000

type Listener = () => void

/**
 * Tells listeners that a session file may have changed (another process appended to it, replaced
 * it by a rewind, or removed it), or its lock file (the pen: taken or let go), or its notes on the board (see `session-board.ts`), or a turn it streams (`stream-files.ts`),
 * soon after it did: one watch of the store directory (inotify
 * where there is one) for all the sessions watched, and a stat of each watched file every
 * {@link SAFETY_POLL_MS} (every {@link POLL_MS} where the directory cannot be watched, or its watch
 * broke), reporting a file whose inode, size or time changed. Reports are coalesced per session
 * within one event-loop turn and may be spurious (this process's own writes are reported too): a
 * listener looks at the file itself. No timer or watch keeps the process alive.
 */
export class SessionWatches {
  private readonly listeners = new Map<SessionId, Set<Listener>>()
  private readonly seen = new Map<SessionId, string>()
  private readonly due = new Set<SessionId>()
  private directory: DirectoryWatch | undefined
  /** Whether the directory cannot be watched (then the stat poll is fast). */
  private unwatchable = false
  private timer: NodeJS.Timeout | undefined
  private scheduled = false
  private polling = false
  /** The store directory's stamp at the last poll. */
  private dirSeen: string | undefined

  constructor(
    private readonly fs: FileSystem,
    private readonly paths: StorePaths,
    private readonly warn: (message: string) => void,
  ) {}

  /** Calls `onChange` when the file of `id` may have changed; returns the function that stops. */
  watch(id: SessionId, onChange: Listener): () => void {
    let set = this.listeners.get(id)
    if (!set) {
      set = new Set()
      this.listeners.set(id, set)
    }
    set.add(onChange)
    this.start()
    return () => {
      const listeners = this.listeners.get(id)
      if (!listeners?.delete(onChange) || listeners.size > 0) return
      this.listeners.delete(id)
      this.seen.delete(id)
      if (this.listeners.size === 0) this.stop()
    }
  }

  /** Stops every watch (the backend stops). */
  close(): void {
    this.listeners.clear()
    this.stop()
  }

  private start(): void {
    if (!this.directory && !this.unwatchable) this.watchDirectory()
    if (!this.timer) this.startPoll()
  }

  private watchDirectory(): void {
    if (!this.fs.watch) {
      this.unwatchable = true
      return
    }
    try {
      this.directory = this.fs.watch(
        this.paths.dir,
        (name) => this.heard(name),
        () => {
          this.directory = undefined
          this.unwatchable = true
          this.warn(`cannot watch ${this.paths.dir} any more: open sessions are stat'ed every ${POLL_MS} ms`)
          this.restartPoll()
        },
      )
    } catch (error) {
      this.unwatchable = true
      this.warn(
        `cannot watch ${this.paths.dir} (${(error as Error).message}): open sessions are stat'ed every ${POLL_MS} ms`,
      )
    }
  }

  private startPoll(): void {
    const every = this.unwatchable ? POLL_MS : SAFETY_POLL_MS
    this.timer = setInterval(() => void this.poll(), every)
    this.timer.unref()
  }

  private restartPoll(): void {
    if (!this.timer) return
    clearInterval(this.timer)
    this.startPoll()
  }

  private stop(): void {
    this.directory?.close()
    this.directory = undefined
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    this.dirSeen = undefined
    this.due.clear()
  }

  private heard(name: string | undefined): void {
    if (name === undefined) {
      for (const id of this.listeners.keys()) this.due.add(id)
    } else {
      const id =
        StorePaths.sessionIdOf(name) ??
        StorePaths.lockIdOf(name) ??
        boardSessionOf(name) ??
        streamSessionOf(name)
      if (id === undefined || !this.listeners.has(id)) return
      this.due.add(id)
    }
    this.schedule()
  }

  private async poll(): Promise<void> {
    if (this.polling) return
    this.polling = true
    try {
      // An entry made, renamed or removed (a pen let go, a note on the board) changes the
      // directory's time: every session may be concerned.
      const dir = stamp(await this.fs.stat(this.paths.dir).catch(() => undefined))
      if (this.dirSeen !== undefined && this.dirSeen !== dir)
        for (const id of this.listeners.keys()) this.due.add(id)
      this.dirSeen = dir
      for (const id of [...this.listeners.keys()]) {
        const stat = await this.fs.stat(this.paths.sessionFile(id)).catch(() => undefined)
        const now = stamp(stat)
        if (this.seen.get(id) === now || !this.listeners.has(id)) continue
        this.seen.set(id, now)
        this.due.add(id)
      }
    } finally {
      this.polling = false
    }
    this.schedule()
  }

  private schedule(): void {
    if (this.scheduled || this.due.size === 0) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      const ids = [...this.due]
      this.due.clear()
      for (const id of ids) {
        for (const listener of [...(this.listeners.get(id) ?? [])]) {
          try {
            listener()
          } catch (error) {
            this.warn(`watching session ${id}: ${(error as Error).message}`)
          }
        }
      }
    })
  }
}

function stamp(stat: FileStat | undefined): string {
  return stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}` : 'gone'
}
