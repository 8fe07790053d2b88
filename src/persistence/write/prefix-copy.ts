import { writeFullySync } from '../fs/file-io.js'
import type { OpenFile } from '../fs/file-system.js'

/** Bytes `[start, end)` of a parent's file holding its first events, and where each one ends. */
export interface PrefixSnapshot {
  readonly file: OpenFile
  readonly start: number
  readonly end: number
  readonly ends: readonly number[]
}

/** One read and one write at a time. */
const BUFFER_BYTES = 1 << 20
/** Bytes copied without giving the event loop a turn (a few ms of copying). */
const SLICE_BYTES = 16 << 20

/**
 * Copies the parent's bytes `[start, end)` to `to` at `at`, each byte read once and written once,
 * and returns the copied events' end offsets in `to`.
 *
 * The copy runs on the main thread in slices of `sliceBytes` (synchronous reads and writes
 * through one 1 MiB buffer), giving the event loop a turn between slices: a round trip through the
 * thread pool per chunk cost more than the copy itself when the CPUs are busy. After each slice an
 * fdatasync of `to` starts in the background (one at a time), so the disk writes the copy while
 * the rest is being made and the caller's final fdatasync finds little left. Those syncs promise
 * nothing; the caller fdatasyncs once after this resolves. A failed one fails the copy (after a
 * failed fsync the kernel may have dropped the error's dirty pages).
 */
export async function copyPrefix(
  snapshot: PrefixSnapshot,
  to: OpenFile,
  at: number,
  sliceBytes = SLICE_BYTES,
): Promise<number[]> {
  const buffer = Buffer.allocUnsafe(Math.min(BUFFER_BYTES, Math.max(1, snapshot.end - snapshot.start)))
  const writeback = new Writeback(to)
  let position = snapshot.start
  try {
    while (position < snapshot.end) {
      const sliceEnd = Math.min(snapshot.end, position + sliceBytes)
      while (position < sliceEnd) {
        const read = snapshot.file.readSync(buffer, 0, Math.min(buffer.length, sliceEnd - position), position)
        if (read === 0) throw new Error(`parent file ended at ${position}, before ${snapshot.end}`)
        writeFullySync(to, buffer.subarray(0, read), at + position - snapshot.start)
        position += read
      }
      if (position < snapshot.end) {
        writeback.start()
        await new Promise((resolve) => setImmediate(resolve))
      }
    }
  } finally {
    await writeback.settled()
  }
  writeback.check()
  const shift = at - snapshot.start
  return snapshot.ends.map((end) => end + shift)
}

/** The fdatasyncs that run beside a copy: at most one in flight, the first failure kept. */
class Writeback {
  private running: Promise<void> | undefined
  private failure: { error: unknown } | undefined

  constructor(private readonly file: OpenFile) {}

  /** Starts an fdatasync unless one is running; throws the first failed one's error. */
  start(): void {
    this.check()
    if (this.running) return
    this.running = this.file.datasync().then(
      () => {
        this.running = undefined
      },
      (error: unknown) => {
        this.failure ??= { error }
        this.running = undefined
      },
    )
  }

  async settled(): Promise<void> {
    await this.running
  }

  check(): void {
    if (this.failure) throw this.failure.error
  }
}
