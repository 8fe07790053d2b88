/**
 * Size of the shared arena lines are encoded into; a line that may need over a quarter of it gets
 * a buffer of its own.
 */
const ARENA_BYTES = 256 << 10
const OWN_BUFFER_BYTES = ARENA_BYTES >> 2
const NEWLINE = 0x0a
const NO_CHUNK = Buffer.alloc(0)

/**
 * The bytes every {@link LineBuffer} of the process encodes its lines into, one after another. Bytes
 * once handed out are never written again (a full arena is replaced, never reused), so writes of
 * them may still be in flight; the old arena is freed when its last piece is.
 */
const arena = { bytes: NO_CHUNK, used: 0 }

/**
 * Lines taken out of a {@link LineBuffer}: their bytes (each line ends in `\n`) in pieces to be
 * written one after another, and their lengths.
 */
export interface TakenLines {
  readonly pieces: readonly Buffer[]
  /** Byte length of each line, `\n` included, in order. */
  readonly lengths: readonly number[]
  /** Their sum. */
  readonly bytes: number
}

/**
 * Lines waiting to be written, encoded to UTF-8 as they are added, into the shared arena outside
 * the JS heap: a serialized event lives only as long as its `add` call (it dies young, never
 * promoted by the garbage collector), and a batch needs no join, no second encoding, no scan for
 * line ends and no buffer of its own. A buffer's consecutive lines are one piece unless another
 * buffer's lines came between them. Nothing is held between batches: an idle session costs no
 * buffer.
 */
export class LineBuffer {
  /** The arena holding the current run of lines, from `start` to `used`. */
  private chunk = NO_CHUNK
  private start = 0
  private used = 0
  /** Earlier pieces not yet taken (runs cut by other buffers' lines, long lines' own buffers). */
  private pieces: Buffer[] = []
  private lengths: number[] = []
  private bytes = 0

  get isEmpty(): boolean {
    return this.lengths.length === 0
  }

  /** Adds `line` (which holds no `\n`) and its `\n`. */
  add(line: string): void {
    const most = line.length * 3 + 1
    if (most > OWN_BUFFER_BYTES) {
      this.settleRun()
      const own = Buffer.from(`${line}\n`)
      this.pieces.push(own)
      this.lengths.push(own.length)
      this.bytes += own.length
      return
    }
    if (most > arena.bytes.length - arena.used) {
      arena.bytes = Buffer.allocUnsafe(ARENA_BYTES)
      arena.used = 0
    }
    if (this.chunk !== arena.bytes || this.used !== arena.used) {
      this.settleRun()
      this.chunk = arena.bytes
      this.start = arena.used
    }
    const at = arena.used
    const written = arena.bytes.write(line, at)
    arena.bytes[at + written] = NEWLINE
    arena.used = at + written + 1
    this.used = arena.used
    this.lengths.push(written + 1)
    this.bytes += written + 1
  }

  /** Takes every line added so far. */
  take(): TakenLines {
    this.settleRun()
    const taken = { pieces: this.pieces, lengths: this.lengths, bytes: this.bytes }
    this.chunk = NO_CHUNK
    this.pieces = []
    this.lengths = []
    this.bytes = 0
    return taken
  }

  /** Drops every line not taken yet. */
  clear(): void {
    this.take()
  }

  /** Moves the current run to `pieces`. */
  private settleRun(): void {
    if (this.used > this.start) this.pieces.push(this.chunk.subarray(this.start, this.used))
    this.start = this.used
  }
}
