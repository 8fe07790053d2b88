import { type FileReader, readAt, readInto } from '../fs/file-io.js'

/** How a `session/title` event line starts: `{"seq":N,"type":"session/title",…` (the writer's key order). */
const MARKER = Buffer.from(',"type":"session/title",')
const LINE_START = /(?:^|\n)\{"seq":(\d{1,16})$/
const CHUNK = 1024 * 1024
/** Enough bytes before a marker to hold `\n{"seq":` and any seq. */
const PREFIX = 32
const NEWLINE = 0x0a

/** What {@link lastTitleIn} found, and how far the lines it looked at were complete. */
export interface TitleScan {
  /** The last own title in the range; undefined when there is none. */
  readonly title: string | undefined
  /**
   * The end of the last complete line in the range (a line start): a later scan of the same file,
   * grown, starts there. `from` when the range holds no complete line.
   */
  readonly complete: number
}

/**
 * The title of the last `session/title` event among the event lines in bytes `[from, to)` of a
 * session file (`from` a line start), searched from the end backwards in 1 MiB reads and stopping
 * at the first hit, so a recent title costs one read. Events with `seq <= inherited` (a fork
 * child's seed: its own header title stands above them) do not count, nor do any before them.
 * A marker that is not at the start of a complete, parsable event line (text inside some other
 * value, a torn tail) is passed over.
 */
export async function lastTitleIn(
  file: FileReader,
  from: number,
  to: number,
  inherited: number,
): Promise<TitleScan> {
  let complete: number | undefined
  let end = to
  // One buffer for every read of the scan: a long untitled session is read whole.
  const buffer = Buffer.allocUnsafe(Math.max(0, Math.min(CHUNK + MARKER.length - 1, to - from)))
  while (end > from) {
    const start = Math.max(from, end - CHUNK)
    const bytes = await readInto(buffer, file, start, Math.min(to, end + MARKER.length - 1) - start)
    if (complete === undefined) {
      const newline = bytes.lastIndexOf(NEWLINE)
      if (newline !== -1) complete = start + newline + 1
    }
    for (let at = bytes.lastIndexOf(MARKER, end - start - 1); at !== -1; ) {
      const found = await titleAt(file, from, to, start + at, bytes, start)
      if (found !== undefined)
        return { title: found.seq > inherited ? found.title : undefined, complete: complete ?? from }
      at = at === 0 ? -1 : bytes.lastIndexOf(MARKER, at - 1)
    }
    end = start
  }
  return { title: undefined, complete: complete ?? from }
}

async function titleAt(
  file: FileReader,
  from: number,
  to: number,
  marker: number,
  bytes: Buffer,
  bytesAt: number,
): Promise<{ seq: number; title: string } | undefined> {
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
    const event = JSON.parse(line) as { seq?: unknown; type?: unknown; data?: { title?: unknown } }
    if (event.type !== 'session/title' || typeof event.data?.title !== 'string') return undefined
    return { seq: Number(event.seq), title: event.data.title }
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
