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
 * Opt-in (serve.ts installs it only when Node runs with `--expose-gc`): gives memory back to the
 * OS once sessions close, in two steps (each debounced over a burst of closes, its timers never
 * keeping the process alive):
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

/**
 * The full collection `node --expose-gc` provides (also through `NODE_OPTIONS=--expose-gc`), or
 * undefined when the process was started without it: V8's flags are never changed at run time.
 */
export function exposedCollector(): (() => void) | undefined {
  const gc: unknown = Reflect.get(globalThis, 'gc')
  return typeof gc === 'function' ? () => gc() : undefined
}

/** This process's memory, and the collector it was started with, if any. */
export function processMemory(): MemoryProbe {
  const collector = exposedCollector()
  return {
    resident: () => guarded(() => process.memoryUsage.rss()),
    heapSpare: () =>
      guarded(() => {
        const { heapTotal, heapUsed } = process.memoryUsage()
        return heapTotal - heapUsed
      }),
    async collect() {
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
