import type { OpenFile } from '../fs/file-system.js'

const CHUNK = 1 << 20
/**
 * The first read is smaller: a replay sends the first events' updates while the rest is read, so
 * the first update of a long session's load does not wait for a whole chunk of long lines.
 */
const FIRST_CHUNK = 1 << 16
const NEWLINE = 0x0a
const noop = () => {}
/**
 * Bytes of lines passed to a consumer that paces the scan between two turns of the event loop: its
 * output (a pipe to a client) is written out only in a turn of the loop, so a chunk of long lines
 * made at once left the pipe empty while the next lines were made. Measured on a 50 MB replay
 * (15 rounds each, interleaved): 0.86-0.87x a raw relay's time, against 0.93x with turns only
 * between chunks; one chunk's output in flight while the next was made bought nothing.
 */
const TURN_BYTES = 128 << 10

export interface ScanResult {
  /** Offset just after the last `\n`: where complete lines end. */
  readonly completeEnd: number
  /** Offset of the end of the file as read. */
  readonly end: number
}

/**
 * Streams `file` from `start`, calling `onLine` for every complete line (without its `\n`) with the
 * offset where it starts. Splits on `\n` bytes, never decodes more than one line at a time, so files
 * larger than the maximum string length work. `line` is only valid during the call. Bytes after the
 * last `\n` are not passed; the result says where they start. When `onLine` returns a promise, the
 * next chunk is read once the last such promise of this chunk settled (the consumer paces the
 * read), and the scan gives the event loop a turn every {@link TURN_BYTES} of lines after such a
 * promise (a line passed is lent for its call only: nothing reads it across a turn).
 */
export async function scanLines(
  file: OpenFile,
  start: number,
  onLine: (line: Buffer, offset: number) => void | Promise<void>,
): Promise<ScanResult> {
  const lines = new LineBuffer(start)
  let pace: Promise<void> | undefined
  let sinceTurn = 0
  for (let size = FIRST_CHUNK; ; size = CHUNK) {
    const read = await lines.readFrom(file, size)
    if (read === 0) break
    for (let line = lines.next(); line; line = lines.next()) {
      const paced = onLine(line.bytes, line.offset)
      if (paced && paced !== pace) {
        pace = paced
        // Awaited at the chunk's end; a rejection met during a turn before then is not unhandled.
        paced.catch(noop)
      }
      sinceTurn += line.bytes.length
      if (pace && sinceTurn >= TURN_BYTES) {
        sinceTurn = 0
        await new Promise((resolve) => setImmediate(resolve))
      }
    }
    lines.keepPartial()
    if (pace) {
      await pace
      pace = undefined
    }
  }
  return { completeEnd: lines.completeEnd, end: lines.end }
}

/**
 * The scan's one read buffer: the bytes of the file from `base` on, up to `filled`. A line that a
 * read cut is moved to the buffer's start and the next read appends to it (one move, where a
 * carried copy and a join copied it twice).
 */
class LineBuffer {
  private buffer = Buffer.allocUnsafe(CHUNK)
  /** `buffer[0, filled)`: where newlines are looked for. */
  private held = this.buffer.subarray(0, 0)
  /** The file offset of `buffer[0]`. */
  private base: number
  private filled = 0
  /** Where the next line starts in `buffer`, and where to look for its newline. */
  private from = 0
  private searchFrom = 0

  constructor(start: number) {
    this.base = start
  }

  /** Offset just after the last newline found. */
  get completeEnd(): number {
    return this.base + this.from
  }

  /** Offset of the end of what was read. */
  get end(): number {
    return this.base + this.filled
  }

  /**
   * Reads up to `size` more bytes after what is held; resolves how many (0 at the end). The buffer
   * grows for a long line and goes back to a chunk's size once what it holds fits one again.
   */
  async readFrom(file: OpenFile, size: number): Promise<number> {
    const needed = this.filled + size
    const length = this.buffer.length
    if (length < needed || (length > CHUNK && needed <= CHUNK)) {
      const resized = Buffer.allocUnsafe(length < needed ? Math.max(length * 2, needed) : CHUNK)
      this.buffer.copy(resized, 0, 0, this.filled)
      this.buffer = resized
    }
    const read = await file.read(this.buffer, this.filled, size, this.end)
    this.filled += read
    this.held = this.buffer.subarray(0, this.filled)
    return read
  }

  /** The next complete line (lent until the next read) and its offset, or undefined. */
  next(): { readonly bytes: Buffer; readonly offset: number } | undefined {
    const nl = this.held.indexOf(NEWLINE, this.searchFrom)
    if (nl === -1) {
      this.searchFrom = this.filled
      return undefined
    }
    const line = { bytes: this.held.subarray(this.from, nl), offset: this.base + this.from }
    this.from = nl + 1
    this.searchFrom = this.from
    return line
  }

  /** Moves the bytes of the line a read cut (after the last newline) to the buffer's start. */
  keepPartial(): void {
    if (this.from === 0) return
    this.buffer.copyWithin(0, this.from, this.filled)
    this.base += this.from
    this.filled -= this.from
    this.searchFrom -= this.from
    this.from = 0
    this.held = this.buffer.subarray(0, this.filled)
  }
}
