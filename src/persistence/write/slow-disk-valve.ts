/** A synchronous write that took longer than this (ms) is slow. */
export const SLOW_SYNC_WRITE_MS = 2
/** Two slow synchronous writes at most this far apart (ms) mean the disk is under pressure. */
export const SLOW_REPEAT_MS = 1_000
/** How long (ms) writes go to the thread pool once the disk is under pressure. */
export const SLOW_DISK_BACKOFF_MS = 10_000

/**
 * Decides whether a store's session writers may write small batches synchronously. Two slow
 * synchronous writes within {@link SLOW_REPEAT_MS} mean the disk is under pressure (page cache
 * writeback throttling, a slow network file system): every batch then goes to the thread pool for
 * {@link SLOW_DISK_BACKOFF_MS}, so the event loop stalls twice, not at every write. One slow write
 * alone is most often the thread losing its CPU during the call on a busy machine, which the
 * thread pool would not avoid. Times are `performance.now()` milliseconds.
 */
export class SlowDiskValve {
  private resumeAt = 0
  private lastSlowAt = Number.NEGATIVE_INFINITY

  /** Whether a small batch may be written synchronously now. */
  syncAllowed(now: number): boolean {
    return now >= this.resumeAt
  }

  /** Notes a synchronous write that ran from `started` to `ended`. */
  wrote(started: number, ended: number): void {
    if (ended - started <= SLOW_SYNC_WRITE_MS) return
    if (ended - this.lastSlowAt <= SLOW_REPEAT_MS) this.resumeAt = ended + SLOW_DISK_BACKOFF_MS
    this.lastSlowAt = ended
  }
}
