import { isUtf8 } from 'node:buffer'

/** The ACP SDK's default cap on one message: 32 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024

const LF = 0x0a
const CR = 0x0d

/** What the splitter reports, in input order. */
export interface LineSink {
  /**
   * A complete line, without its `\n` (or `\r\n`) terminator, decoded, and its bytes (valid
   * only during the call). Blank lines are not reported.
   */
  line(text: string, validUtf8: boolean, bytes: Buffer): void
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
    while (start < chunk.length) {
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
    this.sink.line(line.toString('utf8'), isUtf8(line), line)
  }
}

function isBlank(bytes: Buffer, length: number): boolean {
  for (let i = 0; i < length; i++) {
    const b = bytes[i]
    if (b !== 0x20 && b !== 0x09 && b !== CR) return false
  }
  return true
}
