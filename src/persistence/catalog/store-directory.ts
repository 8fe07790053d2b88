import { setTimeout as delay } from 'node:timers/promises'
import { SessionError, SessionErrorCode } from '../../session/errors.js'
import type { SessionId } from '../../session/ids.js'
import { errnoOf } from '../fs/file-io.js'
import type { FileSystem } from '../fs/file-system.js'
import { StorePaths } from '../store-paths.js'
import type { CachedSummary } from './catalog-file.js'
import { sameFile } from './read-summary.js'

/** Files read or stat'ed at once. */
const PARALLEL = 16
/** Reads of one file (or of the directory) before a list fails (with short waits: descriptors free up). */
export const READ_ATTEMPTS = 4

/** The wait before read attempt `attempt + 1`. */
export function retryDelay(attempt: number): Promise<void> {
  return delay(10 * 4 ** attempt)
}

/** Runs `work` on each of `ids`, at most {@link PARALLEL} at once; rejects with the first failure. */
export async function inParallel(
  ids: readonly SessionId[],
  work: (id: SessionId) => Promise<unknown>,
): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < ids.length) await work(ids[next++] as SessionId)
  }
  await Promise.all(Array.from({ length: Math.min(PARALLEL, ids.length) }, worker))
}

/** The ids of the session files in the store directory. */
export async function storedSessionIds(fs: FileSystem, paths: StorePaths): Promise<SessionId[]> {
  const ids: SessionId[] = []
  for (const name of await readDirectory(fs, paths)) {
    const id = StorePaths.sessionIdOf(name)
    if (id !== undefined) ids.push(id)
  }
  return ids
}

/** The store directory's entries; retried like a file, then `PERSISTENCE_FAILED` (never -32603). */
async function readDirectory(fs: FileSystem, paths: StorePaths): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fs.readdir(paths.dir)
    } catch (error) {
      if (attempt >= READ_ATTEMPTS) {
        const errno = errnoOf(error)
        throw new SessionError(
          SessionErrorCode.PERSISTENCE_FAILED,
          `list: read directory ${paths.dir} failed: ${(error as Error).message}`,
          { op: 'readdir', path: paths.dir, ...(errno !== undefined && { errno }) },
          { cause: error },
        )
      }
      await retryDelay(attempt)
    }
  }
}

/**
 * The watch's safety net: reads the directory and stats every session file, and adds to `changed`
 * each one that is new, gone, or differs from its `cache`d stat, for the next refresh to read. It
 * writes nothing into the cache itself, so it never races a refresh reading the same file.
 */
export async function sweep(
  fs: FileSystem,
  paths: StorePaths,
  cache: ReadonlyMap<SessionId, CachedSummary>,
  changed: Set<SessionId>,
): Promise<void> {
  const ids = await storedSessionIds(fs, paths)
  const present = new Set(ids)
  for (const id of cache.keys()) {
    if (!present.has(id)) changed.add(id)
  }
  await inParallel(ids, async (id) => {
    const cached = cache.get(id)
    if (!cached || !sameFile(await fs.stat(paths.sessionFile(id)).catch(() => undefined), cached.stat)) {
      changed.add(id)
    }
  })
}
