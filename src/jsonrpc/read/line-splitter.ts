import { isUtf8 } from 'node:buffer'

/** The ACP SDK's default cap on one message: 32 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024

const LF = 0x0a
const CR = 0x0d
/** The most bytes of complete lines decoded in one piece (see `emitDecoded`). */
const DECODED_SPAN_BYTES = 1 << 20

/** What the splitter reports, in input order. */
export interface LineSink {
  /**
   * A complete line, without its `\n` (or `\r\n`) terminator, decoded. A line that is not valid
   * UTF-8 comes with its bytes (valid only during the call). Blank lines are not reported.
   */
  line(text: string, validUtf8: boolean, bytes?: Buffer): void
  /**
   * The current line grew past `maxLineBytes`. Reported once per such line, as soon as the cap is
   * crossed; the rest of the line, up to its `\n`, is dropped without being buffered.
   */
  overflow(maxLineBytes: number): void
}

/**
 * Splits a byte stream into lines on the `\n` byte only (never on U+2028/U+2029, unlike
 * `readline`). Lines are decoded as whole byte sequences, so a multi-byte character split across
 * chunks is never torn: 0x0A cannot occur inside a UTF-8 sequence. A trailing `\r` is stripped,
 * and lines of only spaces, tabs or `\r` are skipped. Time is linear in the bytes pushed: each
 * byte is scanned once and each line is copied at most once.
 */
export class LineSplitter {
  private pending: Buffer[] = []
  private pendingBytes = 0
  private discarding = false

  constructor(
    private readonly sink: LineSink,
    readonly maxLineBytes: number = DEFAULT_MAX_LINE_BYTES,
  ) {
    if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1) {
      throw new RangeError(`maxLineBytes must be a positive integer, got ${maxLineBytes}`)
    }
  }

  /** Feeds the next chunk of input. */
  push(chunk: Buffer): void {
    let start = 0
    let decodedTried = false
    while (start < chunk.length) {
      if (!decodedTried && this.pendingBytes === 0 && !this.discarding) {
        decodedTried = true
        const last = chunk.lastIndexOf(LF)
        if (last > start && last - start <= DECODED_SPAN_BYTES && this.emitDecoded(chunk, start, last)) {
          start = last + 1
          continue
        }
      }
      const newline = chunk.indexOf(LF, start)
      const end = newline === -1 ? chunk.length : newline
      if (this.discarding) {
        if (newline !== -1) this.discarding = false
      } else if (this.pendingBytes + (end - start) > this.maxLineBytes + 1) {
        // +1 leaves room for a `\r` before the `\n`, which does not count toward the cap.
        this.startDiscarding()
        if (newline !== -1) this.discarding = false
      } else if (newline === -1) {
        this.pending.push(chunk.subarray(start))
        this.pendingBytes += chunk.length - start
      } else {
        this.emit(chunk.subarray(start, end))
      }
      if (newline === -1) return
      start = newline + 1
    }
  }

  /** Input ended: a last line without `\n` is reported as a line of its own. */
  end(): void {
    if (this.discarding) {
      this.discarding = false
      return
    }
    if (this.pendingBytes > 0) this.emit(Buffer.alloc(0))
  }

  /**
   * Reports the complete lines in `chunk[start, last)` (`last` is a `\n`) from one decoding of the
   * whole span, as `emit` would report them one by one. Declines (false, nothing reported) when
   * the span holds U+FFFD after decoding: then it may not be valid UTF-8, and the bytes decide.
   */
  private emitDecoded(chunk: Buffer, start: number, last: number): boolean {
    const text = chunk.toString('utf8', start, last)
    if (text.includes('\uFFFD')) return false
    let from = 0
    while (from <= text.length) {
      let to = text.indexOf('\n', from)
      if (to === -1) to = text.length
      const end = to > from && text.charCodeAt(to - 1) === CR ? to - 1 : to
      // A UTF-16 unit is at most 3 bytes of UTF-8: only a line that might be over the cap is counted.
      if (
        (end - from) * 3 > this.maxLineBytes &&
        Buffer.byteLength(text.slice(from, end)) > this.maxLineBytes
      ) {
        this.sink.overflow(this.maxLineBytes)
      } else if (!isBlankText(text, from, end)) {
        this.sink.line(text.slice(from, end), true)
      }
      from = to + 1
    }
    return true
  }

  private startDiscarding(): void {
    this.pending = []
    this.pendingBytes = 0
    this.discarding = true
    this.sink.overflow(this.maxLineBytes)
  }

  private emit(tail: Buffer): void {
    let bytes = tail
    if (this.pendingBytes > 0) {
      this.pending.push(tail)
      bytes = Buffer.concat(this.pending, this.pendingBytes + tail.length)
      this.pending = []
      this.pendingBytes = 0
    }
    let length = bytes.length
    if (length > 0 && bytes[length - 1] === CR) length--
    if (length > this.maxLineBytes) {
      this.sink.overflow(this.maxLineBytes)
      return
    }
    if (isBlank(bytes, length)) return
    const line = bytes.subarray(0, length)
    if (isUtf8(line)) this.sink.line(line.toString('utf8'), true)
    else this.sink.line(line.toString('utf8'), false, line)
  }
}

function isBlank(bytes: Buffer, length: number): boolean {
  for (let i = 0; i < length; i++) {
    const b = bytes[i]
    if (b !== 0x20 && b !== 0x09 && b !== CR) return false
  }
  return true
}

function isBlankText(text: string, from: number, end: number): boolean {
  for (let i = from; i < end; i++) {
    const c = text.charCodeAt(i)
    if (c !== 0x20 && c !== 0x09 && c !== CR) return false
  }
  return true
}
