/** Resident memory above the figure at start that makes a closed session worth a collection. */
const RELEASE_ABOVE_BYTES = 16 * 1024 * 1024

/**
 * Gives memory back to the OS once sessions close. V8 frees a closed session's log only at its
 * next full collection and returns the pages to the OS later still (its memory reducer waits for
 * a quiet spell), so a process that loaded a 50 MB session kept ~190 MB resident after closing it
 * (since large event bodies stay on disk, ~35 MB more than idle, still worth giving back).
 * After a session leaves memory while the process holds `RELEASE_ABOVE_BYTES` more than when this
 * was made, one full collection runs (debounced: one per burst of closes). Where V8 offers no
 * collector to call, this does nothing.
 */
export function releaseMemoryOnClose(): () => void {
  const baseline = residentBytes()
  // Looked up when first needed (it loads node:v8 and node:vm and makes a V8 context): not at start.
  let collect: (() => void) | undefined | null = null
  let scheduled = false
  return () => {
    if (collect === undefined || baseline === undefined || scheduled) return
    scheduled = true
    setTimeout(async () => {
      scheduled = false
      const resident = residentBytes()
      if (resident === undefined || resident - baseline <= RELEASE_ABOVE_BYTES) return
      collect ??= await fullCollector()
      collect?.()
    }, 50).unref()
  }
}

/** Resident bytes, or undefined when they cannot be read (it takes a file descriptor: EMFILE). */
function residentBytes(): number | undefined {
  try {
    return process.memoryUsage.rss()
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
