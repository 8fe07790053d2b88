import { randomBytes } from 'node:crypto'
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs'
import { SessionError, SessionErrorCode } from '../session/errors.js'
import type { SessionId } from '../session/ids.js'

/** Lock files this process holds: a pid match alone cannot tell ours from a dead namesake's. */
const held = new Set<string>()

/** The pid in a lock file; undefined when there is none; NaN when it holds garbage. */
function readHolder(path: string): number | undefined {
  try {
    return Number.parseInt(readFileSync(path, 'utf8').trim(), 10)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

/** Whether `pid` names a live process (EPERM: alive, owned by someone else). */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

function lockedError(id: SessionId, pid: number): SessionError {
  const who = pid === process.pid ? 'this process' : `process ${pid}`
  return new SessionError(SessionErrorCode.SESSION_LOCKED, `session ${id} is being written by ${who}`, {
    sessionId: id,
    pid,
  })
}

/** Whether a lock's holder is gone: a dead pid, garbage, or our own pid from an earlier life. */
function isStale(path: string, pid: number): boolean {
  if (pid === process.pid) return !held.has(path)
  return !isAlive(pid)
}

/**
 * Takes the lock file `path` for session `id`, writing this process's pid. The file appears with
 * its content at once (written to a temp name, then `link`ed, which fails if the lock exists, like
 * O_EXCL). A lock whose holder is dead is taken over; a live holder gets
 * `SESSION_LOCKED` with `data.pid`. Synchronous: a few small syscalls.
 */
export function acquireLock(path: string, id: SessionId): void {
  for (let attempt = 0; attempt < 5; attempt++) {
    const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
    writeFileSync(temp, `${process.pid}\n`, { mode: 0o600, flag: 'wx' })
    try {
      linkSync(temp, path)
      held.add(path)
      return
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    } finally {
      unlinkSync(temp)
    }
    const holder = readHolder(path)
    if (holder === undefined) continue
    if (!isStale(path, holder)) throw lockedError(id, holder)
    takeOver(path, id, holder)
  }
  throw lockedError(id, readHolder(path) ?? Number.NaN)
}

/** Moves a stale lock aside; if what was moved is not the stale lock we saw, puts it back. */
function takeOver(path: string, id: SessionId, stalePid: number): void {
  const aside = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.stale`
  try {
    renameSync(path, aside)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  const moved = readHolder(aside)
  if (moved === stalePid || (Number.isNaN(moved) && Number.isNaN(stalePid))) {
    unlinkSync(aside)
    return
  }
  try {
    linkSync(aside, path)
  } finally {
    unlinkSync(aside)
  }
  throw lockedError(id, moved ?? Number.NaN)
}

/** Releases a lock this process holds. A lock that another process took over is left alone. */
export function releaseLock(path: string): void {
  if (!held.delete(path)) return
  if (readHolder(path) === process.pid) {
    try {
      unlinkSync(path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
}

/** The live pid holding `path` other than this process, or undefined when it is free or stale. */
export function liveHolder(path: string): number | undefined {
  const holder = readHolder(path)
  if (holder === undefined || isStale(path, holder)) return undefined
  return holder
}

/** Whether this process holds the lock at `path`. */
export function holdsLock(path: string): boolean {
  return held.has(path)
}
