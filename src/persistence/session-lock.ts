import { randomBytes } from 'node:crypto'
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { SessionError, SessionErrorCode } from '../session/errors.js'
import type { SessionId } from '../session/ids.js'
import { persistenceError } from './fs/file-io.js'

/** Lock files this process holds: a pid match alone cannot tell ours from a dead namesake's. */
const held = new Set<string>()

/** A lock's holder as its file names it: a pid and, where the OS tells, the process's start time. */
interface Holder {
  readonly pid: number
  /** Clock ticks after boot when the process started (`/proc/<pid>/stat` field 22); else undefined. */
  readonly start?: string
}

/** What a lock file holds: a holder, garbage (NaN pid: stale), or not a regular file at all. */
type LockContent = Holder | { readonly notRegular: string }

/** A lock file is a few bytes; more is garbage. */
const MAX_LOCK_BYTES = 128

/** The fields of `/proc/<pid>/stat` after the command name (field 3 first); undefined where unknown. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return undefined
  }
}

/** The start time of `pid` (Linux `/proc/<pid>/stat` field 22); undefined where unknown or gone. */
export function processStartTime(pid: number): string | undefined {
  const start = statFields(pid)?.[19]
  return start !== undefined && /^\d+$/.test(start) ? start : undefined
}

/**
 * Whether `pid` is a process that died and was not reaped yet (state Z or X in `/proc/<pid>/stat`):
 * a killed holder whose parent has not waited for it still answers `kill(pid, 0)`, but writes
 * nothing any more.
 */
function isZombie(pid: number): boolean {
  const state = statFields(pid)?.[0]
  return state === 'Z' || state === 'X'
}

const ownStart = processStartTime(process.pid)

/** What this process writes into its locks: `<pid> <start time>` (just the pid where unknown). */
function ownLockText(): string {
  return ownStart === undefined ? `${process.pid}\n` : `${process.pid} ${ownStart}\n`
}

/**
 * The content of the lock file at `path`; undefined when there is none. Never follows a symlink,
 * never blocks on a FIFO, reads at most {@link MAX_LOCK_BYTES}.
 */
function readLock(path: string): LockContent | undefined {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return undefined
    if (code === 'ELOOP') return { notRegular: 'a symbolic link' }
    throw error
  }
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile()) return { notRegular: stats.isDirectory() ? 'a directory' : 'not a regular file' }
    const buffer = Buffer.alloc(MAX_LOCK_BYTES)
    const length = readSync(fd, buffer, 0, MAX_LOCK_BYTES, 0)
    return parseLock(buffer.toString('utf8', 0, length))
  } finally {
    closeSync(fd)
  }
}

function parseLock(text: string): Holder {
  const match = /^(\d{1,10})(?: (\d{1,20}))?\n?$/.exec(text)
  if (!match) return { pid: Number.NaN }
  const pid = Number(match[1])
  return match[2] !== undefined ? { pid, start: match[2] } : { pid }
}

/** Whether `pid` names a live process (EPERM: alive, owned by someone else; a zombie is dead). */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return !isZombie(pid)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

function lockedError(id: SessionId, pid: number): SessionError {
  const who = pid === process.pid ? 'this process' : `process ${pid}`
  return new SessionError(
    SessionErrorCode.SESSION_LOCKED,
    `session ${id} is busy in ${who}: a turn or another change is being written there; nothing was written here, try again once it is done`,
    { sessionId: id, pid },
  )
}

function notRegularError(id: SessionId, path: string, kind: string): SessionError {
  return new SessionError(
    SessionErrorCode.PERSISTENCE_FAILED,
    `session ${id}: its lock ${path} is ${kind}, not a lock file: refused (remove it if no dsh-acp uses it)`,
    { sessionId: id, op: 'lock', path },
  )
}

/**
 * Whether a lock's holder is gone: garbage, a dead pid, a pid now used by another process (its
 * start time differs), or this process's pid from an earlier life or not held by it.
 */
function isStale(path: string, holder: Holder): boolean {
  if (!Number.isInteger(holder.pid)) return true
  if (holder.pid === process.pid)
    return !held.has(path) || (holder.start !== undefined && holder.start !== ownStart)
  if (!isAlive(holder.pid)) return true
  if (holder.start === undefined) return false
  const now = processStartTime(holder.pid)
  return now !== undefined && now !== holder.start
}

function sameHolder(a: LockContent | undefined, b: Holder): boolean {
  if (a === undefined || 'notRegular' in a) return false
  if (Number.isNaN(a.pid) && Number.isNaN(b.pid)) return true
  return a.pid === b.pid && a.start === b.start
}

/** Writes this process's lock text to a new file `temp`; a failed write (ENOSPC) leaves no file. */
function writeTemp(temp: string): void {
  try {
    writeFileSync(temp, ownLockText(), { mode: 0o600, flag: 'wx' })
  } catch (error) {
    // EEXIST: the name is someone else's file. Otherwise open may have created it before the
    // write failed (a full disk): remove what is ours.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      try {
        unlinkSync(temp)
      } catch {
        // Never created, or already gone.
      }
    }
    throw error
  }
}

/**
 * Takes the lock file `path` for session `id`, writing this process's pid and start time. The file
 * appears with its content at once (written to a temp name, then `link`ed, which fails if the lock
 * exists, like O_EXCL). A stale lock (see {@link isStale}) is taken over; a live holder gets
 * `SESSION_LOCKED` with `data.pid`. A lock path that is not a regular file is refused with
 * `PERSISTENCE_FAILED`. Synchronous: a few small syscalls.
 */
export function acquireLock(path: string, id: SessionId): void {
  for (let attempt = 0; attempt < 5; attempt++) {
    const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
    writeTemp(temp)
    try {
      linkSync(temp, path)
      held.add(path)
      return
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    } finally {
      unlinkSync(temp)
    }
    const content = readLock(path)
    if (content === undefined) continue
    if ('notRegular' in content) throw notRegularError(id, path, content.notRegular)
    if (!isStale(path, content)) throw lockedError(id, content.pid)
    if (!removeStale(path, content)) {
      const now = readLock(path)
      throw lockedError(id, now !== undefined && !('notRegular' in now) ? now.pid : Number.NaN)
    }
  }
  throw lockedError(id, Number.NaN)
}

/**
 * Removes the lock at `path` if it still holds `stale`: moves it aside, checks what was moved,
 * and puts it back when it is not (someone took the lock over in between). True when the path is
 * free afterwards.
 */
function removeStale(path: string, stale: Holder): boolean {
  const aside = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.stale`
  try {
    renameSync(path, aside)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true
    throw error
  }
  if (sameHolder(readLock(aside), stale)) {
    unlinkSync(aside)
    return true
  }
  try {
    linkSync(aside, path)
  } finally {
    unlinkSync(aside)
  }
  return false
}

/**
 * Removes the lock at `path` when its holder is gone (a crashed writer's, say). Never throws:
 * resolves whether a lock was removed.
 */
export function removeIfStale(path: string): boolean {
  try {
    const content = readLock(path)
    if (content === undefined || 'notRegular' in content || !isStale(path, content)) return false
    return removeStale(path, content)
  } catch {
    return false
  }
}

/** Releases a lock this process holds. A lock that another process took over is left alone. */
export function releaseLock(path: string): void {
  if (!held.delete(path)) return
  const content = readLock(path)
  if (content !== undefined && !('notRegular' in content) && content.pid === process.pid) {
    try {
      unlinkSync(path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
}

/** The live pid holding `path` other than this process, or undefined when it is free or stale. */
export function liveHolder(path: string): number | undefined {
  const content = readLock(path)
  if (content === undefined || 'notRegular' in content || isStale(path, content)) return undefined
  return content.pid
}

/**
 * Takes the lock when nobody else holds it: true when taken, false when a live holder has it (or
 * it could not be taken at all). For a moment's work that may be skipped, such as a tail repair.
 */
export function tryLock(path: string, id: SessionId): boolean {
  try {
    acquireLock(path, id)
    return true
  } catch {
    return false
  }
}

/** {@link acquireLock}, its errno failures (a read-only store, no descriptors left) as `PERSISTENCE_FAILED`. */
export function takeLock(path: string, id: SessionId): void {
  try {
    acquireLock(path, id)
  } catch (error) {
    throw persistenceError(id, 'lock', path, error)
  }
}
