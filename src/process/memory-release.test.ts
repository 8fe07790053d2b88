import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { exposedCollector, type MemoryProbe, processMemory, releaseMemoryOnClose } from './memory-release.js'

const MiB = 1024 * 1024

/** A process whose figures the test sets; counts the collections asked for. */
function fakeProcess(start: { resident: number; spare: number }) {
  const figures = { ...start }
  let collections = 0
  const probe: MemoryProbe = {
    resident: () => figures.resident,
    heapSpare: () => figures.spare,
    collect: async () => {
      collections++
      return true
    },
  }
  return { figures, probe, collections: () => collections }
}

describe('releaseMemoryOnClose', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('collects once shortly after a burst of closes while the process holds 16 MiB more than at start', async () => {
    const proc = fakeProcess({ resident: 50 * MiB, spare: 0 })
    const closed = releaseMemoryOnClose(proc.probe)
    proc.figures.resident = 90 * MiB
    closed()
    closed()
    closed()
    await vi.advanceTimersByTimeAsync(49)
    expect(proc.collections()).toBe(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(proc.collections()).toBe(1)
    await vi.advanceTimersByTimeAsync(60_000)
    expect(proc.collections()).toBe(1)
  })

  it('does not collect after a close when the process holds little more than at start', async () => {
    const proc = fakeProcess({ resident: 50 * MiB, spare: MiB })
    const closed = releaseMemoryOnClose(proc.probe)
    proc.figures.resident = 60 * MiB
    closed()
    await vi.advanceTimersByTimeAsync(60_000)
    expect(proc.collections()).toBe(0)
  })

  it('collects again 7 s after the last close while V8 holds more than 2 MiB of heap it does not use', async () => {
    const proc = fakeProcess({ resident: 50 * MiB, spare: 0 })
    const closed = releaseMemoryOnClose(proc.probe)
    proc.figures.spare = 3 * MiB
    closed()
    await vi.advanceTimersByTimeAsync(5000)
    closed() // a later close moves the settling collection: it waits for 7 s without closes
    await vi.advanceTimersByTimeAsync(6999)
    expect(proc.collections()).toBe(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(proc.collections()).toBe(1)
    await vi.advanceTimersByTimeAsync(60_000)
    expect(proc.collections()).toBe(1)
  })

  it('skips the settling collection when the heap holds little it does not use', async () => {
    const proc = fakeProcess({ resident: 50 * MiB, spare: 0 })
    const closed = releaseMemoryOnClose(proc.probe)
    proc.figures.resident = 80 * MiB
    proc.figures.spare = 2 * MiB
    closed()
    await vi.advanceTimersByTimeAsync(60_000)
    expect(proc.collections()).toBe(1) // the first one only
  })

  it('does nothing when the figures cannot be read', async () => {
    let collections = 0
    const closed = releaseMemoryOnClose({
      resident: () => undefined,
      heapSpare: () => undefined,
      collect: async () => {
        collections++
        return false
      },
    })
    closed()
    await vi.advanceTimersByTimeAsync(60_000)
    expect(collections).toBe(0)
  })
})

describe('processMemory', () => {
  it('collects with the collector Node was started with (vitest runs with --expose-gc), and says so', async () => {
    expect(exposedCollector()).toBeTypeOf('function')
    expect(await processMemory().collect()).toBe(true)
  })
})
