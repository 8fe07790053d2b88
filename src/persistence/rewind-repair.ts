import {
  closeSync,
  constants,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readSync,
  unlinkSync,
  writeSync,
} from 'node:fs'
import { readBranchRecord } from './branch-record.js'
import { parseHeader } from './file-format.js'
import { errnoOf } from './fs/file-io.js'
import { liveHolder } from './session-lock.js'
import { StorePaths } from './store-paths.js'

/**
 * The start-up repair of rewinds made by a link (`rewind-link.ts`) that a crash interrupted, so
 * every crash point leaves the old state or the new one. For each branch record
 * `<branch>.branch.json` of `names` whose branch and session no live process holds (a rewind in
 * progress holds both locks):
 * - no `<branch>.jsonl`: the crash came before the link (or a delete of the branch came before its
 *   record's): the record goes;
 * - `<branch>.jsonl` is still the session's inode: the crash came before the commit: the link and
 *   the record go (the session is as it was). A machine crash there may leave the record torn (it
 *   is synced with the link): the session is then the one the link's own first line names;
 * - else the rewind committed: a branch that ends where the old file ended, or inside its tail,
 *   gets the tail written there and fdatasynced (the new state).
 * Never throws: what it cannot do is logged and left.
 */
export function repairRewinds(paths: StorePaths, names: readonly string[], log: RepairLog): void {
  for (const name of names) {
    const branchId = StorePaths.branchIdOf(name)
    if (branchId === undefined) continue
    try {
      repairOne(paths, branchId, log)
    } catch (error) {
      log.warn(`could not check the rewind branch record ${name}: ${(error as Error).message}`)
    }
  }
}

function repairOne(paths: StorePaths, branchId: string, log: RepairLog): void {
  const recordPath = paths.branchFile(branchId)
  const branchPath = paths.sessionFile(branchId)
  if (liveHolder(paths.lockFile(branchId)) !== undefined) return
  const branch = statOf(branchPath)
  const record = readBranchRecord(recordPath, branchId)
  if (branch === undefined) {
    unlinkSync(recordPath)
    log.info(
      `removed the record of rewind branch ${branchId}, whose file does not exist (a rewind or delete interrupted)`,
    )
    return
  }
  if (record === undefined) {
    if (undoTornLink(paths, branchId, branch.ino, log)) return
    log.warn(
      `the rewind branch record ${recordPath} is not valid: ${branchPath} cannot be read as that branch`,
    )
    return
  }
  const sessionId = record.header.parentSession as string
  if (liveHolder(paths.lockFile(sessionId)) !== undefined) return
  const session = statOf(paths.sessionFile(sessionId))
  if (session !== undefined && session.ino === branch.ino) {
    unlinkSync(branchPath)
    unlinkSync(recordPath)
    syncDir(paths.dir)
    log.info(
      `undid the rewind of ${sessionId} a crash interrupted before it committed (branch ${branchId} removed)`,
    )
    return
  }
  const tail = Buffer.from(record.tail)
  if (branch.size < record.size || branch.size >= record.size + tail.length) return
  const fd = openSync(branchPath, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  try {
    if (!fstatSync(fd).isFile()) return
    let written = 0
    while (written < tail.length)
      written += writeSync(fd, tail, written, tail.length - written, record.size + written)
    fdatasyncSync(fd)
  } finally {
    closeSync(fd)
  }
  log.info(`finished the rewind of ${sessionId} a crash interrupted: branch ${branchId} got its last events`)
}

/**
 * A branch whose record is not valid, but whose file is still the inode of the session its first
 * line names: a rewind a machine crash cut before its record was durable. Removes the link and the
 * record (the old state); false (nothing done) when the branch is anything else.
 */
function undoTornLink(paths: StorePaths, branchId: string, ino: number, log: RepairLog): boolean {
  const sessionId = firstLineId(paths.sessionFile(branchId))
  if (sessionId === undefined || sessionId === branchId) return false
  if (liveHolder(paths.lockFile(sessionId)) !== undefined) return false
  if (statOf(paths.sessionFile(sessionId))?.ino !== ino) return false
  unlinkSync(paths.sessionFile(branchId))
  unlinkSync(paths.branchFile(branchId))
  syncDir(paths.dir)
  log.info(
    `undid the rewind of ${sessionId} a crash interrupted before it committed (branch ${branchId} removed, its record was torn)`,
  )
  return true
}

/** The `id` of the header on the first line of the file at `path`; undefined when it has none. */
function firstLineId(path: string): string | undefined {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  try {
    const bytes = Buffer.alloc(HEADER_BYTES)
    const text = bytes.toString('utf8', 0, readSync(fd, bytes, 0, bytes.length, 0))
    const end = text.indexOf('\n')
    if (end < 0) return undefined
    return parseHeader(text.slice(0, end), path).id
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

/** Enough bytes for a session's header line (its title and fork reference included). */
const HEADER_BYTES = 64 * 1024

/** Where the repair reports (the start-up tidy-up's log). */
interface RepairLog {
  info(message: string): void
  warn(message: string): void
}

function statOf(path: string): { ino: number; size: number } | undefined {
  try {
    const stats = lstatSync(path)
    return stats.isFile() ? { ino: stats.ino, size: stats.size } : undefined
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined
    throw error
  }
}

function syncDir(dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY)
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
