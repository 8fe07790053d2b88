/** What a write resolves with when its line was handed over already. */
export const HANDED = Promise.resolve()

/** The lines not yet handed to the stream; the promise of their hand-over is made only when asked for. */
export class Batch {
  /** A string without its `\n`; bytes with theirs. */
  readonly lines: Array<string | Uint8Array> = []
  private promise: Promise<void> | undefined
  private settle: (() => void) | undefined
  private done = false

  /** Resolves once these lines were handed to the stream (or dropped because it closed). */
  get handed(): Promise<void> {
    if (this.done) return HANDED
    this.promise ??= new Promise<void>((resolve) => {
      this.settle = resolve
    })
    return this.promise
  }

  resolve(): void {
    this.done = true
    this.settle?.()
  }
}

/** What to write for `lines`: runs of strings joined by {@link joinedPieces}, bytes as they are. */
export function batchPieces(lines: ReadonlyArray<string | Uint8Array>): Array<string | Uint8Array> {
  if (lines.every((line) => typeof line === 'string')) return joinedPieces(lines as string[])
  const pieces: Array<string | Uint8Array> = []
  let run: string[] = []
  for (const line of lines) {
    if (typeof line === 'string') {
      run.push(line)
      continue
    }
    if (run.length > 0) pieces.push(...joinedPieces(run))
    run = []
    pieces.push(line)
  }
  if (run.length > 0) pieces.push(...joinedPieces(run))
  return pieces
}

/** Characters per write at most: lines held while the peer reads slowly may add up beyond V8's string limit. */
const MAX_PIECE_CHARS = 16 * 1024 * 1024

/** `lines`, each ended by `\n`, joined into as few strings as fit {@link MAX_PIECE_CHARS} (a longer line alone). */
export function joinedPieces(lines: readonly string[]): string[] {
  const pieces: string[] = []
  let start = 0
  let chars = 0
  for (let i = 0; i < lines.length; i++) {
    const length = (lines[i] as string).length + 1
    if (i > start && chars + length > MAX_PIECE_CHARS) {
      pieces.push(`${lines.slice(start, i).join('\n')}\n`)
      start = i
      chars = 0
    }
    chars += length
  }
  if (start < lines.length) pieces.push(`${lines.slice(start).join('\n')}\n`)
  return pieces
}
