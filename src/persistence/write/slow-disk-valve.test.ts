import { describe, expect, it } from 'vitest'
import { SLOW_DISK_BACKOFF_MS, SLOW_REPEAT_MS, SLOW_SYNC_WRITE_MS, SlowDiskValve } from './slow-disk-valve.js'

const slow = SLOW_SYNC_WRITE_MS + 1

describe('SlowDiskValve', () => {
  it('allows synchronous writes while they are fast', () => {
    const valve = new SlowDiskValve()
    for (let at = 0; at < 5_000; at += 10) valve.wrote(at, at + SLOW_SYNC_WRITE_MS)
    expect(valve.syncAllowed(5_000)).toBe(true)
  })

  it('keeps allowing them after one slow write, and after slow writes far apart', () => {
    const valve = new SlowDiskValve()
    valve.wrote(100, 100 + slow)
    expect(valve.syncAllowed(100 + slow)).toBe(true)
    const next = 100 + slow + SLOW_REPEAT_MS + 1
    valve.wrote(next - slow, next)
    expect(valve.syncAllowed(next)).toBe(true)
  })

  it('sends writes to the thread pool for the back-off after two slow writes close together', () => {
    const valve = new SlowDiskValve()
    valve.wrote(100, 100 + slow)
    const second = 100 + slow + SLOW_REPEAT_MS
    valve.wrote(second - slow, second)
    expect(valve.syncAllowed(second)).toBe(false)
    expect(valve.syncAllowed(second + SLOW_DISK_BACKOFF_MS - 1)).toBe(false)
    expect(valve.syncAllowed(second + SLOW_DISK_BACKOFF_MS)).toBe(true)
  })
})
