import { describe, expect, it } from 'vitest'
import { InboundToken } from './inbound-token.js'

describe('InboundToken', () => {
  it('fires its listeners once, in order, even when one throws; one added later is called soon', async () => {
    const token = new InboundToken()
    const calls: string[] = []
    token.onCancellationRequested(() => {
      calls.push('a')
      throw new Error('listener failure')
    })
    const removed = token.onCancellationRequested(() => calls.push('removed'))
    token.onCancellationRequested(() => calls.push('b'))
    removed.dispose()
    token.cancel()
    token.cancel()
    expect(token.isCancellationRequested).toBe(true)
    expect(calls).toEqual(['a', 'b'])
    token.onCancellationRequested(() => calls.push('late'))
    expect(calls).toEqual(['a', 'b'])
    await Promise.resolve()
    expect(calls).toEqual(['a', 'b', 'late'])
  })
})
