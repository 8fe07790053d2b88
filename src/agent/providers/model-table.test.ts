import { describe, expect, it } from 'vitest'
import { createProvider } from './index.js'
import { contextWindowFor, knownContextWindow, pricingFor } from './model-table.js'
import { modelTermsOf, unusedModelTerms } from './model-terms.js'

describe('the model table', () => {
  it('knows common models by their ids as servers spell them', () => {
    expect(knownContextWindow('deepseek-chat')).toBe(128_000)
    expect(knownContextWindow('deepseek-reasoner')).toBe(128_000)
    expect(knownContextWindow('gpt-4o-mini')).toBe(128_000)
    expect(knownContextWindow('gpt-4.1-nano')).toBe(1_047_576)
    expect(knownContextWindow('o4-mini')).toBe(200_000)
    expect(knownContextWindow('meta-llama/Llama-3.1-8B-Instruct')).toBe(131_072)
    expect(knownContextWindow('llama3.2:3b')).toBe(131_072)
    expect(knownContextWindow('llama3:8b')).toBe(8_192)
    expect(knownContextWindow('Qwen/Qwen3-Coder-30B-A3B-Instruct')).toBe(262_144)
    expect(knownContextWindow('qwen2.5-coder:7b')).toBe(32_768)
    expect(knownContextWindow('fake-model')).toBeUndefined()
    expect(knownContextWindow('o10')).toBeUndefined()
  })

  it('flags come first, then the configured model, then the table', () => {
    const terms = { modelContextWindows: { 'deepseek-chat': 64_000, mine: 4_000 } }
    expect(contextWindowFor('deepseek-chat', terms)).toBe(64_000)
    expect(contextWindowFor('mine', terms)).toBe(4_000)
    expect(contextWindowFor('gpt-4o', terms)).toBe(128_000)
    expect(contextWindowFor('mine', { ...terms, contextWindow: 2_000 })).toBe(2_000)
    expect(contextWindowFor('toString', terms)).toBeUndefined()
  })

  it('prices only where configured, flags first', () => {
    const modelPrices = { a: { input: 1, output: 2 } }
    expect(pricingFor('a', { modelPrices })).toEqual({ input: 1, output: 2 })
    expect(pricingFor('b', { modelPrices })).toBeUndefined()
    expect(pricingFor('a', { modelPrices, prices: { input: 3, output: 4 } })).toEqual({ input: 3, output: 4 })
  })
})

describe('model terms in the provider options', () => {
  it('every provider answers windows and prices from its options', () => {
    const provider = createProvider('echo', {
      modelName: 'a,b',
      modelContextWindows: { a: 1000 },
      modelPrices: { b: { input: 1, output: 2, currency: 'EUR' } },
    })
    expect(provider.contextWindow?.('a')).toBe(1000)
    expect(provider.contextWindow?.('b')).toBeUndefined()
    expect(provider.pricing?.('b')).toEqual({ input: 1, output: 2, currency: 'EUR' })
  })

  it('refuses a bad shape, naming it', () => {
    expect(() => modelTermsOf({ modelPrices: { a: { input: -1, output: 1 } } })).toThrow(
      'modelPrices["a"].input must be a price',
    )
    expect(() => modelTermsOf({ modelContextWindows: { a: 1.5 } })).toThrow('modelContextWindows["a"]')
    expect(() => modelTermsOf({ prices: { input: 1, output: 1, currency: 'US dollars' } })).toThrow(
      'currency',
    )
    expect(() => modelTermsOf({ modelPrices: [] })).toThrow('keyed by model id')
  })

  it('names the configured models the provider does not offer', () => {
    const provider = createProvider('echo', { modelName: 'a' })
    const terms = modelTermsOf({
      modelContextWindows: { a: 1, b: 2 },
      modelPrices: { b: { input: 1, output: 1 }, c: { input: 1, output: 1 } },
    })
    expect(unusedModelTerms(provider, terms)).toEqual(['b', 'c'])
  })
})
