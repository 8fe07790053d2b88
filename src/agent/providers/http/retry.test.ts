import { describe, expect, it } from 'vitest'
import { MAX_RETRY_DELAY_MS, parseRetryAfter, retryDelayMs } from './retry.js'

describe('retryDelayMs', () => {
  it('grows exponentially with jitter in [0.5, 1) of the step, capped', () => {
    expect(retryDelayMs(0, 100, undefined, () => 0)).toBe(50)
    expect(retryDelayMs(0, 100, undefined, () => 0.999)).toBeCloseTo(99.95)
    expect(retryDelayMs(3, 100, undefined, () => 0)).toBe(400)
    expect(retryDelayMs(30, 100, undefined, () => 0)).toBe(MAX_RETRY_DELAY_MS)
  })

  it('uses the server wait when given, capped', () => {
    expect(retryDelayMs(5, 100, 0)).toBe(0)
    expect(retryDelayMs(0, 100, 2500)).toBe(2500)
    expect(retryDelayMs(0, 100, 3_600_000)).toBe(MAX_RETRY_DELAY_MS)
  })
})

describe('parseRetryAfter', () => {
  it('reads retry-after-ms, seconds and HTTP dates', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250)
    expect(parseRetryAfter(new Headers({ 'retry-after': '2' }))).toBe(2000)
    expect(parseRetryAfter(new Headers({ 'retry-after': '0.5' }))).toBe(500)
    const now = Date.parse('2025-01-01T00:00:00Z')
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }), now)).toBe(3000)
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Tue, 31 Dec 2024 00:00:00 GMT' }), now)).toBe(0)
  })

  it('is undefined when absent or unreadable', () => {
    expect(parseRetryAfter(new Headers())).toBeUndefined()
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }))).toBeUndefined()
  })
})
