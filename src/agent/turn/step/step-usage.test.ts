import { describe, expect, it } from 'vitest'
import { stepCost } from './step-usage.js'

describe('stepCost', () => {
  it('prices uncached input, cached input and output per million tokens', () => {
    const usage = { inputTokens: 1_200, outputTokens: 40, cachedInputTokens: 1_000 }
    expect(stepCost(usage, { input: 0.27, cachedInput: 0.07, output: 1.1 })).toEqual({
      amount: 0.000168,
      currency: 'USD',
    })
  })

  it('charges cached tokens at the input price when no cached price is set, in the price currency', () => {
    const usage = { inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 400_000 }
    expect(stepCost(usage, { input: 2, output: 8, currency: 'EUR' })).toEqual({ amount: 2, currency: 'EUR' })
  })

  it('never counts more cached tokens than input tokens', () => {
    const usage = { inputTokens: 10, outputTokens: 0, cachedInputTokens: 50 }
    expect(stepCost(usage, { input: 1e6, cachedInput: 0, output: 0 }).amount).toBe(0)
  })
})
