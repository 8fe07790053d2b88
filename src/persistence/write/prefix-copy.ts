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
/** Bytes written between two background fdatasyncs (see {@link copyPrefix}). */
const WRITEBACK_BYTES = 16 << 20

/** {@link copyPrefix}'s pace: bytes between two turns of the event loop, and between two background syncs. */
export interface CopyOptions {
  readonly sliceBytes?: number
  readonly writebackBytes?: number | undefined
}

/**
 * Copies the parent's bytes `[start, end)` to `to` at `at`, each byte read once and written once,
 * and returns the copied events' end offsets in `to`.
 *
 * The copy runs on the main thread (synchronous reads and writes through one 1 MiB buffer), giving
 * the event loop a turn every `sliceBytes`: a round trip through the thread pool per chunk cost
 * more than the copy itself when the CPUs are busy. Every `writebackBytes` written (16 MiB unless
 * told), an fdatasync of `to` starts in the background (one at a time), so the disk writes the copy
 * while the rest is being made and the caller's final fdatasync finds less left. Each such sync is
 * a journal commit the copy may end up waiting for: in plain `node:fs` a sync every 2 MiB made copy
 * and sync of a 25-45 MB prefix 0.86-0.98x a `copyFile` + fdatasync of the same bytes, but in the
 * store's rewind of a 5 and a 25 MB prefix (two builds interleaved in one process, load 1-3) it
 * cost 1-3 ms and 2-8 ms more than one every 16 MiB. Those syncs promise nothing; the caller
 * fdatasyncs once after this resolves. A failed one fails the copy (after a failed fsync the kernel
 * may have dropped the error's dirty pages, and a later fdatasync of the same descriptor need not
 * report it again), which is why the copy waits for the one in flight before it resolves.
 */
export async function copyPrefix(
  snapshot: PrefixSnapshot,
  to: OpenFile,
  at: number,
  options: CopyOptions = {},
): Promise<number[]> {
  const { sliceBytes = SLICE_BYTES, writebackBytes = WRITEBACK_BYTES } = options
  const buffer = Buffer.allocUnsafe(Math.min(BUFFER_BYTES, Math.max(1, snapshot.end - snapshot.start)))
  const writeback = new Writeback(to)
  const marks = { slice: snapshot.start, synced: snapshot.start }
  let position = snapshot.start
  try {
    while (position < snapshot.end) {
      const length = Math.min(buffer.length, snapshot.end - position, marks.slice + sliceBytes - position)
      const read = snapshot.file.readSync(buffer, 0, length, position)
      if (read === 0) throw new Error(`parent file ended at ${position}, before ${snapshot.end}`)
      writeFullySync(to, buffer.subarray(0, read), at + position - snapshot.start)
      position += read
      if (position === snapshot.end) break
      if (position - marks.synced >= writebackBytes && writeback.start()) marks.synced = position
      if (position - marks.slice >= sliceBytes) {
        marks.slice = position
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

  /** Starts an fdatasync unless one is running (then false); throws the first failed one's error. */
  start(): boolean {
    this.check()
    if (this.running) return false
    this.running = this.file.datasync().then(
      () => {
        this.running = undefined
      },
      (error: unknown) => {
        this.failure ??= { error }
        this.running = undefined
      },
    )
    return true
  }

  async settled(): Promise<void> {
    await this.running
  }

  check(): void {
    if (this.failure) throw this.failure.error
  }
}
