/**
 * Chunk sizes: a batch's first chunk is small, each next one twice the last, up to the largest; a
 * line too long for that gets a buffer of its own.
 */
const FIRST_CHUNK_BYTES = 16 << 10
const LARGEST_CHUNK_BYTES = 256 << 10
const NEWLINE = 0x0a
const NO_CHUNK = Buffer.alloc(0)

/**
 * Lines taken out of a {@link LineBuffer}: their bytes (each line ends in `\n`) in pieces to be
 * written one after another (never joined: a batch is written with one `pwritev`), and their lengths.
 */
export interface TakenLines {
  readonly pieces: readonly Buffer[]
  /** Byte length of each line, `\n` included, in order. */
  readonly lengths: readonly number[]
}

/**
 * Lines waiting to be written, encoded to UTF-8 as they are added, into chunks outside the JS heap:
 * a serialized event lives only as long as its `add` call (it dies young, never promoted by the
 * garbage collector), and a batch needs no join, no second encoding and no scan for line ends.
 * Bytes handed out by `take` are never written again (the next line starts a new chunk), so a
 * write of them may still be in flight while lines are added. Nothing is held between batches: an
 * idle session costs no buffer.
 */
export class LineBuffer {
  private chunk = NO_CHUNK
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
      if (most > LARGEST_CHUNK_BYTES) {
        const own = Buffer.from(`${line}\n`)
        this.pieces.push(own)
        this.lengths.push(own.length)
        return
      }
      const size = Math.min(LARGEST_CHUNK_BYTES, Math.max(FIRST_CHUNK_BYTES, this.chunk.length * 2, most))
      this.chunk = Buffer.allocUnsafe(size)
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
    this.chunk = NO_CHUNK
    this.start = 0
    this.used = 0
    const pieces = this.pieces
    const lengths = this.lengths
    this.pieces = []
    this.lengths = []
    return { pieces, lengths }
  }

  /** Drops every line not taken yet. */
  clear(): void {
    this.take()
  }

  /** Moves the current chunk's untaken bytes to `pieces`; the chunk goes on after them. */
  private settleChunk(): void {
    if (this.used > this.start) this.pieces.push(this.chunk.subarray(this.start, this.used))
    this.start = this.used
  }
}
