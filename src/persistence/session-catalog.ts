import type { ListOptions, SessionPage, SessionSummary } from '../session/header.js'
import type { SessionId } from '../session/ids.js'
import { decodeCursor, pageSize, paginate } from '../session/paginate.js'
import { parseHeader } from './file-format.js'
import { errnoOf } from './file-io.js'
import type { FileStat, FileSystem, OpenFile } from './file-system.js'
import { titleFromHead } from './head-title.js'
import { StorePaths } from './store-paths.js'

const WINDOW = 16 * 1024
const PARALLEL = 16
const NEWLINE = 0x0a

interface CachedSummary {
  readonly stat: FileStat
  readonly summary: SessionSummary
}

/**
 * Summaries of stored sessions for `list`, from each file's first bytes (the header line, and the
 * first prompt for a title derived as a live session derives it) and its last line. An in-memory
 * cache keyed by (inode, size, mtime) avoids rereading files that did not change, which a `stat`
 * tells, so it stays correct when other processes write, crash or delete. `title` is the header's,
 * else the derived one (a later `session/title` event shows only while the session is live).
 */
export class SessionCatalog {
  private readonly cache = new Map<SessionId, CachedSummary>()

  constructor(
    private readonly fs: FileSystem,
    private readonly paths: StorePaths,
    private readonly warn: (message: string) => void,
  ) {}

  async list(options: ListOptions): Promise<SessionPage> {
    pageSize(options.limit)
    if (options.cursor !== undefined) decodeCursor(options.cursor)
    const ids: SessionId[] = []
    for (const name of await this.fs.readdir(this.paths.dir)) {
      const id = StorePaths.sessionIdOf(name)
      if (id !== undefined) ids.push(id)
    }
    const summaries: SessionSummary[] = []
    let next = 0
    const worker = async () => {
      while (next < ids.length) {
        const summary = await this.summary(ids[next++] as SessionId)
        if (summary) summaries.push(summary)
      }
    }
    await Promise.all(Array.from({ length: Math.min(PARALLEL, ids.length) }, worker))
    return paginate(summaries, options)
  }

  /** The summary of one stored session; undefined if it vanished or its header is unreadable. */
  async summary(id: SessionId): Promise<SessionSummary | undefined> {
    const path = this.paths.sessionFile(id)
    const cached = this.cache.get(id)
    try {
      if (cached) {
        const stat = await this.fs.stat(path)
        if (sameFile(stat, cached.stat)) return cached.summary
      }
      const file = await this.fs.open(path, 'r')
      try {
        const stat = await file.stat()
        const summary = await readSummary(file, stat.size, path, id)
        this.cache.set(id, { stat, summary })
        return summary
      } finally {
        await file.close()
      }
    } catch (error) {
      this.cache.delete(id)
      if (errnoOf(error) !== 'ENOENT') this.warn(`list: skipping ${path}: ${(error as Error).message}`)
      return undefined
    }
  }
}

function sameFile(a: FileStat, b: FileStat): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs
}

async function readSummary(
  file: OpenFile,
  size: number,
  path: string,
  id: SessionId,
): Promise<SessionSummary> {
  let head = await readAt(file, 0, Math.min(size, WINDOW))
  let headerEnd = head.indexOf(NEWLINE)
  while (headerEnd === -1 && head.length < size) {
    head = Buffer.concat([
      head,
      await readAt(file, head.length, Math.min(size - head.length, head.length * 4)),
    ])
    headerEnd = head.indexOf(NEWLINE)
  }
  if (headerEnd === -1) throw new Error('no complete header line')
  const header = parseHeader(head.toString('utf8', 0, headerEnd), path, id)
  const last = await lastLine(file, size, headerEnd + 1, head)
  const title = header.title ?? titleFromHead(head, headerEnd + 1)
  let updatedAt = header.createdAt
  if (last !== undefined) {
    try {
      const time = (JSON.parse(last) as { time?: unknown }).time
      if (typeof time === 'string') updatedAt = time
    } catch {
      // An unparsable last line is a torn tail, repaired on open: the time of creation stands.
    }
  }
  return {
    sessionId: id,
    cwd: header.cwd,
    createdAt: header.createdAt,
    updatedAt,
    ...(title !== undefined && { title }),
    ...(header.parentSession !== undefined && { parentSession: header.parentSession }),
    ...(header.seedLength !== undefined && { seedLength: header.seedLength }),
    ...(header.subagent !== undefined && { subagent: header.subagent }),
    live: false,
  }
}

/** The last complete line after `from` (text without `\n`), reading a growing window from the end. */
async function lastLine(
  file: OpenFile,
  size: number,
  from: number,
  head: Buffer,
): Promise<string | undefined> {
  let window = WINDOW
  for (;;) {
    const start = Math.max(from, size - window)
    const bytes = size <= head.length ? head.subarray(start, size) : await readAt(file, start, size - start)
    const end = bytes.lastIndexOf(NEWLINE)
    if (end === -1) {
      if (start === from) return undefined
    } else {
      const begin = bytes.lastIndexOf(NEWLINE, end - 1)
      if (begin !== -1 || start === from) return bytes.toString('utf8', begin + 1, end)
    }
    window *= 4
  }
}

async function readAt(file: OpenFile, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length)
  let done = 0
  while (done < length) {
    const read = await file.read(buffer, done, length - done, position + done)
    if (read === 0) break
    done += read
  }
  return buffer.subarray(0, done)
}
