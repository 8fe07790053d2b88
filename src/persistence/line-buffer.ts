/** Bytes per chunk the lines are encoded into; a line too long for one gets a buffer of its own. */
const CHUNK_BYTES = 256 << 10
const NEWLINE = 0x0a

/** Lines taken out of a {@link LineBuffer}: their bytes (each line ends in `\n`) and their lengths. */
export interface TakenLines {
  readonly bytes: Buffer
  /** Byte length of each line, `\n` included, in order. */
  readonly lengths: readonly number[]
}

/**
 * Lines waiting to be written, encoded to UTF-8 as they are added, into chunks outside the JS heap:
 * a serialized event lives only as long as its `add` call (it dies young, never promoted by the
 * garbage collector), and a batch needs no join, no second encoding and no scan for line ends.
 * Bytes handed out by `take` are never written again (later lines go after them), so a write of
 * them may still be in flight while lines are added.
 */
export class LineBuffer {
  private chunk = Buffer.allocUnsafe(0)
  /** Where the bytes not yet taken start in `chunk`, and where the next line goes. */
  private start = 0
  private used = 0
  /** Earlier pieces not yet taken (a full chunk's tail, a long line's own buffer). */
  private pieces: Buffer[] = []
  private lengths: number[] = []

  get isEmpty(): boolean {
    return this.lengths.length === 0
  }

  /** Adds `line` (which holds no `\n`) and its `\n`. */
  add(line: string): void {
    const most = line.length * 3 + 1
    if (most > this.chunk.length - this.used) {
      this.settleChunk()
      if (most > CHUNK_BYTES) {
        const own = Buffer.from(`${line}\n`)
        this.pieces.push(own)
        this.lengths.push(own.length)
        return
      }
      this.chunk = Buffer.allocUnsafe(CHUNK_BYTES)
      this.start = 0
      this.used = 0
    }
    const written = this.chunk.write(line, this.used)
    this.chunk[this.used + written] = NEWLINE
    this.used += written + 1
    this.lengths.push(written + 1)
  }

  /** Takes every line added so far, as one buffer. */
  take(): TakenLines {
    this.settleChunk()
    const pieces = this.pieces
    const lengths = this.lengths
    this.pieces = []
    this.lengths = []
    const bytes = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces)
    return { bytes, lengths }
  }

  /** Drops every line not taken yet. */
  clear(): void {
    this.settleChunk()
    this.pieces = []
    this.lengths = []
  }

  /** Moves the current chunk's untaken bytes to `pieces`; the chunk goes on after them. */
  private settleChunk(): void {
    if (this.used > this.start) this.pieces.push(this.chunk.subarray(this.start, this.used))
    this.start = this.used
  }
}
