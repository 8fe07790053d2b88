import type { SessionSummary } from '../../session/header.js'
import type { SessionId } from '../../session/ids.js'
import { sessionHeaderOf } from '../branch-record.js'
import { type FileReader, readAt } from '../fs/file-io.js'
import type { FileStat, OpenFile } from '../fs/file-system.js'
import { titleFromHead } from '../read/head-title.js'
import { lastTitleIn } from '../read/last-title.js'
import { tailCost } from '../read/tail-cost.js'
import type { CachedSummary } from './catalog-file.js'

/** What the catalog reads of a file first: the header line, and the first prompt for a title. */
const WINDOW = 16 * 1024
const NEWLINE = 0x0a

/** Whether a file's stat is the one cached: same inode, size and mtime. */
export function sameFile(a: FileStat | undefined, b: FileStat): boolean {
  return a !== undefined && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs
}

/** A session file to summarize: open for reading, its size, its path and its session's id. */
interface SummarySource {
  readonly file: OpenFile
  readonly size: number
  readonly path: string
  readonly id: SessionId
}

/**
 * The summary of the session file `file` (`size` bytes): its header, the time of its last line,
 * its title (see `SessionCatalog`) and its cost (`tailCost`); `grown` is what an earlier read of the same file found.
 */
export async function readSummary(
  source: SummarySource,
  grown?: CachedSummary['titles'],
): Promise<Pick<CachedSummary, 'summary' | 'titles'>> {
  const { file, size, path, id } = source
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
  const header = sessionHeaderOf(head.toString('utf8', 0, headerEnd), path, id)
  // What the first read took (the whole of a small file) and the title search's read from the end
  // serve the reads after them: a file is read at most once per range.
  const reader = new LastReadReader(file, head)
  const titles = await lastOwnTitle({ file: reader, size, start: headerEnd + 1 }, header, grown)
  const last = await lastLine(reader, size, headerEnd + 1)
  const cost = await tailCost(reader, headerEnd + 1, size, header.seedLength ?? 0)
  const title = titles.title ?? header.title ?? titleFromHead(head, headerEnd + 1)
  let updatedAt = header.createdAt
  if (last !== undefined) {
    try {
      const time = (JSON.parse(last) as { time?: unknown }).time
      // Never before creation: a fork child's inherited last event can be older than the child.
      if (typeof time === 'string' && time > updatedAt) updatedAt = time
    } catch {
      // An unparsable last line is a torn tail, repaired on open: the time of creation stands.
    }
  }
  // Frozen: pages hand out the cached summary itself.
  const summary: SessionSummary = Object.freeze({
    sessionId: id,
    cwd: header.cwd,
    createdAt: header.createdAt,
    updatedAt,
    ...(title !== undefined && { title }),
    ...(header.parentSession !== undefined && { parentSession: header.parentSession }),
    ...(header.seedLength !== undefined && { seedLength: header.seedLength }),
    ...(header.subagent !== undefined && { subagent: header.subagent }),
    ...(titles.archived === true && { archived: true as const }),
    ...(cost !== undefined && { cost }),
    live: false,
  })
  return { summary, titles }
}

/** {@link lastTitleIn} over the events, or only over what was appended since `grown` was found. */
async function lastOwnTitle(
  events: { readonly file: FileReader; readonly size: number; readonly start: number },
  header: { readonly createdAt: string; readonly seedLength?: number },
  grown: CachedSummary['titles'] | undefined,
): Promise<CachedSummary['titles']> {
  const { file, size, start: eventsStart } = events
  const inherited = header.seedLength ?? 0
  const { createdAt } = header
  if (grown && grown.createdAt === createdAt && grown.complete >= eventsStart && grown.complete <= size) {
    const since = await lastTitleIn(file, grown.complete, size, inherited)
    const archived = since.archived ?? grown.archived
    return {
      title: since.title ?? grown.title,
      ...(archived !== undefined && { archived }),
      complete: Math.max(since.complete, grown.complete),
      createdAt,
    }
  }
  return { ...(await lastTitleIn(file, eventsStart, size, inherited)), createdAt }
}

/** The last complete line after `from` (text without `\n`), reading a growing window from the end. */
async function lastLine(file: FileReader, size: number, from: number): Promise<string | undefined> {
  let window = WINDOW
  for (;;) {
    const start = Math.max(from, size - window)
    const bytes = await readAt(file, start, size - start)
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

/**
 * Reads a file, serving a read that falls inside the bytes it last read (at first: `head`, read
 * from offset 0) from memory. The buffers read into are kept, not copied: callers hand over
 * buffers they never write to again.
 */
class LastReadReader implements FileReader {
  private at = 0

  constructor(
    private readonly file: FileReader,
    private last: Buffer,
  ) {}

  async read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> {
    if (position >= this.at && position + length <= this.at + this.last.length) {
      return this.last.copy(buffer, offset, position - this.at, position - this.at + length)
    }
    const read = await this.file.read(buffer, offset, length, position)
    this.at = position
    this.last = Buffer.from(buffer.buffer, buffer.byteOffset + offset, read)
    return read
  }
}
