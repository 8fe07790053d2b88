import { readdirSync, statSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { streamWriterOf } from './board/stream-files.js'
import { errnoOf } from './fs/file-io.js'
import { repairRewinds } from './rewind-repair.js'
import { isAlive, removeIfStale } from './session-lock.js'
import { StorePaths } from './store-paths.js'

/** Where the tidy-up reports: recovery that went as designed is info, a problem the user should fix is warn. */
export interface TidyLog {
  info(message: string): void
  warn(message: string): void
}

/**
 * Startup tidy-up, which never fails: deletes temp files left by dead processes (an interrupted
 * create or lock, a turn's stream to other processes) and locks whose holder is gone, saying so at info level (an editor that ends us
 * with SIGKILL leaves one every time: that is recovery, not a fault); warns about what it cannot
 * remove and about a store directory others may write. Then repairs the rewinds a crash
 * interrupted (`rewind-repair.ts`).
 */
export function tidyStore(paths: StorePaths, log: TidyLog): void {
  const warn = (message: string): void => log.warn(message)
  let names: string[]
  try {
    const mode = statSync(paths.dir).mode
    if ((mode & 0o022) !== 0) {
      warn(
        `the store directory ${paths.dir} is writable by others (mode ${(mode & 0o777).toString(8)}): they can plant or remove sessions; chmod 700 it`,
      )
    }
    names = readdirSync(paths.dir)
  } catch (error) {
    warn(`could not tidy the store ${paths.dir}: ${(error as Error).message}`)
    return
  }
  for (const name of names) {
    const path = join(paths.dir, name)
    if (name.endsWith('.lock') && !name.startsWith('.')) {
      if (removeIfStale(path)) log.info(`removed the stale lock ${name} of a process that is gone`)
      continue
    }
    const owner = StorePaths.tempOwner(name) ?? streamWriterOf(name)
    if (owner === undefined || (owner !== process.pid && isAlive(owner))) continue
    try {
      unlinkSync(path)
      log.info(`removed orphan temp file ${name} of process ${owner}`)
    } catch (error) {
      if (errnoOf(error) !== 'ENOENT') {
        warn(`could not remove orphan temp entry ${name}: ${(error as Error).message}`)
      }
    }
  }
  repairRewinds(paths, names, log)
}
