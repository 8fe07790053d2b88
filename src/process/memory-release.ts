/** Resident memory above the figure at start that makes a closed session worth a collection. */
const RELEASE_ABOVE_BYTES = 16 * 1024 * 1024
/** How long after a close the first collection waits (one per burst of closes). */
const RELEASE_DELAY_MS = 50
/**
 * Quiet after the last close before the settling collection. V8 shrinks its young generation at a
 * full collection only when allocation over its last 5 s was slow; this leaves it a margin.
 */
const SETTLE_DELAY_MS = 7000
/** Heap that V8 holds committed beyond what it uses, above which the settling collection runs. */
const SETTLE_ABOVE_BYTES = 2 * 1024 * 1024

/** What {@link releaseMemoryOnClose} reads and does; each may be unavailable (undefined). */
export interface MemoryProbe {
  /** Resident bytes of the process. */
  resident(): number | undefined
  /** Bytes the JS heap holds committed beyond those it uses. */
  heapSpare(): number | undefined
  /** Runs one full garbage collection; resolves false when no collector can be had. */
  collect(): Promise<boolean>
}

/**
 * Gives memory back to the OS once sessions close, in two steps (each debounced over a burst of
 * closes, its timers never keeping the process alive):
 * - 50 ms after a close, while the process holds 16 MiB more than when this was made, one full
 *   collection: V8 frees a closed session's log only at its next full collection, and returns the
 *   pages to the OS later still.
 * - 7 s after the last close, while V8 holds more than 2 MiB of heap committed beyond what it uses,
 *   one more. Listing and loading grow the young generation (2-16 MiB per semispace here, from
 *   0.5), and V8 shrinks it only at a full collection after ~5 s of slow allocation, which its own
 *   memory reducer did not reach in 25 s of idleness; this one reaches it (3-12 MB given back after
 *   a 50 MB session).
 */
export function releaseMemoryOnClose(probe: MemoryProbe = processMemory()): () => void {
  const baseline = probe.resident()
  let releasing = false
  let settle: ReturnType<typeof setTimeout> | undefined
  const release = async () => {
    const resident = probe.resident()
    if (baseline === undefined || resident === undefined || resident - baseline <= RELEASE_ABOVE_BYTES) return
    await probe.collect()
  }
  const settleNow = async () => {
    settle = undefined
    const spare = probe.heapSpare()
    if (spare !== undefined && spare > SETTLE_ABOVE_BYTES) await probe.collect()
  }
  return () => {
    if (settle) clearTimeout(settle)
    settle = setTimeout(settleNow, SETTLE_DELAY_MS)
    settle.unref()
    if (releasing) return
    releasing = true
    setTimeout(() => {
      releasing = false
      void release()
    }, RELEASE_DELAY_MS).unref()
  }
}

/** This process's memory, and the collector `--expose-gc` provides (looked up when first needed). */
export function processMemory(): MemoryProbe {
  // null: not looked up yet; undefined: none to be had. Not at start: it loads node:v8 and
  // node:vm and makes a V8 context.
  let collector: (() => void) | undefined | null = null
  return {
    resident: () => guarded(() => process.memoryUsage.rss()),
    heapSpare: () =>
      guarded(() => {
        const { heapTotal, heapUsed } = process.memoryUsage()
        return heapTotal - heapUsed
      }),
    async collect() {
      collector ??= await fullCollector()
      collector?.()
      return collector !== undefined
    },
  }
}

/** Reading memory figures takes a file descriptor: undefined when none is left (EMFILE). */
function guarded(read: () => number): number | undefined {
  try {
    return read()
  } catch {
    return undefined
  }
}

async function fullCollector(): Promise<(() => void) | undefined> {
  try {
    const { setFlagsFromString } = await import('node:v8')
    const { runInNewContext } = await import('node:vm')
    // The collector --expose-gc provides; only contexts made after the flag see it.
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as unknown
    return typeof gc === 'function' ? (gc as () => void) : undefined
  } catch {
    return undefined
  }
}
