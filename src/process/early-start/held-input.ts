import { Readable } from 'node:stream'

const LF = 0x0a

/**
 * Holds an input stream while the server is being built: reads it until its first complete line
 * (so a leading `initialize` can be answered before everything else is ready), then pauses it.
 * `release` gives the input back whole, in order, minus the first line when that was answered,
 * for the connection to read. Nothing read is lost, and the stream is never read by two readers.
 */
export class HeldInput {
  private held: Buffer[] = []
  private heldBytes = 0
  /** Bytes of the first line, its `\n` included; -1 while none is complete. */
  private firstLineBytes = -1
  private ended = false
  private gaveUp = false
  private settle!: (line: Buffer | undefined) => void
  /** Settles the pending {@link nextLine}, with the second line or undefined. */
  private settleNext: ((line: Buffer | undefined) => void) | undefined
  private nextAsked = false
  /** The longest second line {@link nextLine} waits for. */
  private nextLimit = 0
  /**
   * The first line without its `\n`; undefined when the input ended (or failed) before one, or
   * when it grew past `maxLineBytes` (the connection then answers for it).
   */
  readonly firstLine: Promise<Buffer | undefined>

  constructor(
    private readonly input: Readable,
    private readonly maxLineBytes: number,
  ) {
    this.firstLine = new Promise((resolve) => {
      this.settle = resolve
    })
    input.on('data', this.onData)
    input.on('end', this.onEnd)
    input.on('close', this.onEnd)
    input.on('error', this.onEnd)
  }

  private readonly onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk
    this.held.push(bytes)
    this.heldBytes += bytes.length
    // Once the first line is known (or given up on), later chunks are only held for release.
    if (this.firstLineBytes >= 0 || this.gaveUp) {
      this.offerNextLine(bytes)
      return
    }
    const newline = bytes.indexOf(LF)
    if (newline !== -1) {
      this.firstLineBytes = this.heldBytes - bytes.length + newline + 1
      this.input.pause()
      const length = this.firstLineBytes - 1
      this.settle(length > this.maxLineBytes ? undefined : Buffer.concat(this.held).subarray(0, length))
    } else if (this.heldBytes > this.maxLineBytes + 1) {
      this.gaveUp = true
      this.input.pause()
      this.settle(undefined)
    }
  }

  private readonly onEnd = () => {
    this.ended = true
    this.settle(undefined)
    this.settleNext?.(undefined)
  }

  /**
   * The second line without its `\n`, once the first is known: read as the input gives it, for at
   * most `waitMs` (then undefined, as when the input ends first or the line grows past
   * `maxBytes`, or `maxLineBytes` when less). The input is paused again when it settles; nothing is
   * consumed: `release` still gives the line to the connection. For a look at what the client
   * asked right after its `initialize` (process/early-start/early-load.ts). Asked once; a second
   * ask gives undefined.
   */
  nextLine(waitMs: number, maxBytes = this.maxLineBytes): Promise<Buffer | undefined> {
    if (this.firstLineBytes < 0 || this.nextAsked) return Promise.resolve(undefined)
    this.nextAsked = true
    this.nextLimit = Math.min(maxBytes, this.maxLineBytes)
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settleNext?.(undefined), waitMs)
      this.settleNext = (line) => {
        clearTimeout(timer)
        this.settleNext = undefined
        this.input.pause()
        resolve(line)
      }
      this.offerNextLine()
      if (this.ended) this.settleNext?.(undefined)
      else if (this.waitingForNextLine()) this.input.resume()
    })
  }

  private waitingForNextLine(): boolean {
    return this.settleNext !== undefined
  }

  /**
   * Settles a pending {@link nextLine} when the held bytes hold a whole second line, or too many:
   * looks in `chunk`, the bytes just held, or (on the first call) in all held after the first line.
   */
  private offerNextLine(chunk?: Buffer): void {
    if (!this.settleNext || this.firstLineBytes < 0) return
    const from = chunk ? this.heldBytes - chunk.length : this.firstLineBytes
    const newline = (chunk ?? Buffer.concat(this.held).subarray(this.firstLineBytes)).indexOf(LF)
    if (newline !== -1) {
      const end = from + newline
      const all = Buffer.concat(this.held)
      this.held = [all]
      this.settleNext(
        end - this.firstLineBytes > this.nextLimit ? undefined : all.subarray(this.firstLineBytes, end),
      )
    } else if (this.heldBytes - this.firstLineBytes > this.nextLimit + 1) this.settleNext(undefined)
  }

  /**
   * Stops holding and returns what to read from now on: the held bytes (without the first line
   * when `skipFirstLine`) followed by the rest of the input. The stream is paused: attach the
   * reader, then call `resume()` on it.
   */
  release(skipFirstLine: boolean): Readable {
    this.settleNext?.(undefined)
    this.input.off('data', this.onData)
    this.input.off('end', this.onEnd)
    this.input.off('close', this.onEnd)
    this.input.off('error', this.onEnd)
    if (skipFirstLine && this.firstLineBytes < 0) throw new Error('there is no first line to skip')
    const all = Buffer.concat(this.held)
    const rest = skipFirstLine ? all.subarray(this.firstLineBytes) : all
    this.held = []
    if (this.ended) {
      const done = Readable.from(rest.length > 0 ? [rest] : [], { objectMode: false })
      done.pause()
      return done
    }
    if (rest.length > 0) this.input.unshift(rest)
    this.input.pause()
    return this.input
  }
}
