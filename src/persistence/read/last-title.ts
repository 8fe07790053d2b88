import { type FileReader, readAt, readInto } from '../fs/file-io.js'

/** What the scan looks for: the last own event of each type, by how its line starts (the writer's key order). */
const MARKERS = {
  title: Buffer.from(',"type":"session/title",'),
  archived: Buffer.from(',"type":"session/archived",'),
} as const
type Marked = keyof typeof MARKERS
const KINDS = Object.keys(MARKERS) as Marked[]
const LONGEST_MARKER = Math.max(...KINDS.map((kind) => MARKERS[kind].length))
const LINE_START = /(?:^|\n)\{"seq":(\d{1,16})$/
const CHUNK = 1024 * 1024
/** Enough bytes before a marker to hold `\n{"seq":` and any seq. */
const PREFIX = 32
const NEWLINE = 0x0a

/** What {@link lastTitleIn} found, and how far the lines it looked at were complete. */
export interface TitleScan {
  /** The last own title in the range; undefined when there is none. */
  readonly title: string | undefined
  /** What the last own `session/archived` in the range said; undefined when there is none. */
  readonly archived?: boolean | undefined
  /**
   * The end of the last complete line in the range (a line start): a later scan of the same file,
   * grown, starts there. `from` when the range holds no complete line.
   */
  readonly complete: number
}

/**
 * The title of the last `session/title` event, and the state of the last `session/archived` one,
 * among the event lines in bytes `[from, to)` of a session file (`from` a line start), searched
 * from the end backwards in 1 MiB reads and stopping once both are found, so recent ones cost one
 * read. Events with `seq <= inherited` (a fork child's seed: its own header title stands above
 * them, and it is not archived with its parent) do not count, nor do any before them. A marker
 * that is not at the start of a complete, parsable event line (text inside some other value, a
 * torn tail) is passed over.
 */
export async function lastTitleIn(
  file: FileReader,
  from: number,
  to: number,
  inherited: number,
): Promise<TitleScan> {
  let complete: number | undefined
  const found: { title?: string | null; archived?: boolean | null } = {}
  const pending = new Set<Marked>(KINDS)
  let end = to
  // One buffer for every read of the scan: a long session without both events is read whole.
  const buffer = Buffer.allocUnsafe(Math.max(0, Math.min(CHUNK + LONGEST_MARKER - 1, to - from)))
  while (end > from && pending.size > 0) {
    const start = Math.max(from, end - CHUNK)
    const bytes = await readInto(buffer, file, start, Math.min(to, end + LONGEST_MARKER - 1) - start)
    if (complete === undefined) {
      const newline = bytes.lastIndexOf(NEWLINE)
      if (newline !== -1) complete = start + newline + 1
    }
    for (const kind of [...pending]) {
      const marker = MARKERS[kind]
      for (let at = bytes.lastIndexOf(marker, end - start - 1); at !== -1; ) {
        const hit = await eventAt({ file, from, to }, { bytes, at: start }, start + at, kind)
        if (hit !== undefined) {
          // Inherited (seq <= inherited): nothing own of this kind comes before it either.
          const own = hit.seq > inherited
          if (kind === 'title') found.title = own ? (hit.value as string) : null
          else found.archived = own ? (hit.value as boolean) : null
          pending.delete(kind)
          break
        }
        at = at === 0 ? -1 : bytes.lastIndexOf(marker, at - 1)
      }
    }
    end = start
  }
  return {
    title: found.title ?? undefined,
    ...(typeof found.archived === 'boolean' && { archived: found.archived }),
    complete: complete ?? from,
  }
}

/** The bytes `[from, to)` of a file that a scan searches. */
interface ScanRange {
  readonly file: FileReader
  readonly from: number
  readonly to: number
}

/** A read of the scan: `bytes` from offset `at`. */
interface ScanChunk {
  readonly bytes: Buffer
  readonly at: number
}

/** The event of kind `kind` whose line holds the marker at offset `marker`, if it is one. */
async function eventAt(
  range: ScanRange,
  chunk: ScanChunk,
  marker: number,
  kind: Marked,
): Promise<{ seq: number; value: string | boolean } | undefined> {
  const { file, from, to } = range
  const { bytes, at: bytesAt } = chunk
  const prefixStart = Math.max(from, marker - PREFIX)
  const prefix =
    prefixStart >= bytesAt
      ? bytes.toString('latin1', prefixStart - bytesAt, marker - bytesAt)
      : (await readAt(file, prefixStart, marker - prefixStart)).toString('latin1')
  const match = LINE_START.exec(prefixStart === from ? `\n${prefix}` : prefix)
  if (!match) return undefined
  const lineStart = marker - match[0].length + (match[0].startsWith('\n') ? 1 : 0)
  const line = await lineFrom(file, lineStart, to)
  if (line === undefined) return undefined
  try {
    const event = JSON.parse(line) as {
      seq?: unknown
      type?: unknown
      data?: { title?: unknown; archived?: unknown }
    }
    if (kind === 'title') {
      if (event.type !== 'session/title' || typeof event.data?.title !== 'string') return undefined
      return { seq: Number(event.seq), value: event.data.title }
    }
    if (event.type !== 'session/archived' || typeof event.data?.archived !== 'boolean') return undefined
    return { seq: Number(event.seq), value: event.data.archived }
  } catch {
    return undefined
  }
}

/** The complete line starting at `start` (without `\n`), or undefined when no `\n` ends it before `to`. */
async function lineFrom(file: FileReader, start: number, to: number): Promise<string | undefined> {
  const parts: Buffer[] = []
  let position = start
  let window = 4096
  while (position < to) {
    const chunk = await readAt(file, position, Math.min(window, to - position))
    if (chunk.length === 0) return undefined
    const newline = chunk.indexOf(NEWLINE)
    if (newline !== -1) {
      parts.push(chunk.subarray(0, newline))
      return Buffer.concat(parts).toString('utf8')
    }
    parts.push(chunk)
    position += chunk.length
    window = Math.min(window * 4, CHUNK)
  }
  return undefined
}
