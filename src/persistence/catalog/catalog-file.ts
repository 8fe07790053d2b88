import type { SessionSummary } from '../../session/header.js'
import type { SessionId } from '../../session/ids.js'
import { errnoOf, readAt, writeFully } from '../fs/file-io.js'
import type { FileStat, FileSystem } from '../fs/file-system.js'
import type { TitleScan } from '../read/last-title.js'
import { StorePaths } from '../store-paths.js'

/** Version of the saved catalog's format; a file of another version is ignored. */
const CATALOG_VERSION = 2
/** A saved catalog larger than this is refused (it would be from a store far beyond any real one). */
const MAX_CATALOG_BYTES = 64 << 20

/** What the catalog knows of one stored session file, valid while the file's stat is the same. */
export interface CachedSummary {
  readonly stat: FileStat
  readonly summary: SessionSummary
  /** Where the search for the last `session/title` event got to: a grown file is searched from there. */
  readonly titles: TitleScan & { readonly createdAt: string }
}

/**
 * The saved catalog's text: `{ "version": 2, "entries": [ { stat, summary, titles }, … ] }`, one
 * entry per cached session file. It is a cache, never the truth: each entry is used only while its
 * file's (inode, size, mtime) are still those recorded.
 */
export function encodeCatalog(entries: Iterable<CachedSummary>): string {
  return JSON.stringify({ version: CATALOG_VERSION, entries: [...entries] })
}

/**
 * The entries of a saved catalog, by session id. Entries that are not exactly what
 * {@link encodeCatalog} writes are dropped one by one (their files are read again); a file that is
 * not JSON, or of another version, throws.
 */
export function decodeCatalog(text: string): Map<SessionId, CachedSummary> {
  const saved = JSON.parse(text) as { version?: unknown; entries?: unknown }
  if (typeof saved !== 'object' || saved === null || saved.version !== CATALOG_VERSION) {
    throw new Error(`not a version ${CATALOG_VERSION} catalog`)
  }
  if (!Array.isArray(saved.entries)) throw new Error('no entries')
  const entries = new Map<SessionId, CachedSummary>()
  for (const entry of saved.entries) {
    const valid = validEntry(entry)
    if (valid) entries.set(valid.summary.sessionId, valid)
  }
  return entries
}

/**
 * The entries of the store's saved catalog; undefined when there is none. Throws when it cannot be
 * read (it is not a regular file, it is too large, a read failed) or is not a catalog.
 */
export async function readCatalog(
  fs: FileSystem,
  paths: StorePaths,
): Promise<Map<SessionId, CachedSummary> | undefined> {
  let text: string
  try {
    const file = await fs.open(paths.catalogFile(), 'r')
    try {
      const size = (file.opened ?? (await file.stat())).size
      if (size > MAX_CATALOG_BYTES) throw new Error(`${size} bytes, more than a catalog can be`)
      text = (await readAt(file, 0, size)).toString('utf8')
    } finally {
      await file.close()
    }
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined
    throw error
  }
  return decodeCatalog(text)
}

/**
 * Writes `text` (from {@link encodeCatalog}) to a temp file, 0600, and renames it into place, so a
 * reader sees a whole catalog or the one before. Not fsynced: it is a cache, and a catalog a crash
 * left torn or empty is ignored. The temp file does not outlive a failure.
 */
export async function writeCatalog(fs: FileSystem, paths: StorePaths, text: string): Promise<void> {
  const temp = paths.catalogTempFile()
  const file = await fs.open(temp, 'wx', 0o600)
  try {
    await writeFully(file, Buffer.from(text), 0)
  } catch (error) {
    await file.close().catch(() => {})
    await fs.unlink(temp).catch(() => {})
    throw error
  }
  await file.close()
  await fs.rename(temp, paths.catalogFile()).catch(async (error: unknown) => {
    await fs.unlink(temp).catch(() => {})
    throw error
  })
}

type Fields = Record<string, unknown>

function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const isString = (value: unknown): value is string => typeof value === 'string'
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0
const optional = (value: unknown, check: (value: unknown) => boolean) => value === undefined || check(value)

function isCost(value: unknown): value is { amount: number; currency: string } {
  return (
    isFields(value) &&
    typeof value.amount === 'number' &&
    Number.isFinite(value.amount) &&
    value.amount >= 0 &&
    isString(value.currency) &&
    value.currency !== ''
  )
}

function validEntry(entry: unknown): CachedSummary | undefined {
  if (!isFields(entry) || !isFields(entry.stat) || !isFields(entry.summary) || !isFields(entry.titles)) {
    return undefined
  }
  const { stat, summary, titles } = entry
  const statOk =
    isCount(stat.size) && isCount(stat.ino) && Number.isFinite(stat.mtimeMs) && stat.isFile === true
  const subagent = summary.subagent
  const summaryOk =
    isString(summary.sessionId) &&
    StorePaths.sessionIdOf(`${summary.sessionId}.jsonl`) === summary.sessionId &&
    isString(summary.cwd) &&
    isString(summary.createdAt) &&
    isString(summary.updatedAt) &&
    optional(summary.title, isString) &&
    optional(summary.parentSession, isString) &&
    optional(summary.seedLength, isCount) &&
    optional(subagent, (marker) => isFields(marker) && isCount(marker.turn) && isString(marker.callId)) &&
    optional(summary.archived, (value) => value === true) &&
    optional(summary.cost, isCost) &&
    summary.live === false
  const titlesOk =
    optional(titles.title, isString) &&
    optional(titles.archived, (value) => typeof value === 'boolean') &&
    isCount(titles.complete) &&
    isString(titles.createdAt)
  if (!statOk || !summaryOk || !titlesOk) return undefined
  return {
    stat: {
      size: stat.size as number,
      ino: stat.ino as number,
      mtimeMs: stat.mtimeMs as number,
      isFile: true,
    },
    summary: {
      sessionId: summary.sessionId as string,
      cwd: summary.cwd as string,
      createdAt: summary.createdAt as string,
      updatedAt: summary.updatedAt as string,
      ...(summary.title !== undefined && { title: summary.title as string }),
      ...(summary.parentSession !== undefined && { parentSession: summary.parentSession as string }),
      ...(summary.seedLength !== undefined && { seedLength: summary.seedLength as number }),
      ...(isFields(subagent) && {
        subagent: { turn: subagent.turn as number, callId: subagent.callId as string },
      }),
      ...(summary.archived === true && { archived: true as const }),
      ...(isCost(summary.cost) && { cost: { amount: summary.cost.amount, currency: summary.cost.currency } }),
      live: false,
    },
    titles: {
      title: titles.title as string | undefined,
      ...(typeof titles.archived === 'boolean' && { archived: titles.archived }),
      complete: titles.complete as number,
      createdAt: titles.createdAt as string,
    },
  }
}
