import { describe, expect, it } from 'vitest'
import { parseCli } from './cli-args.js'

describe('--price-*', () => {
  it('gives one price for every model, cached input and currency optional', () => {
    expect(parseCli(['--price-input', '0.27', '--price-output', '1.10']).prices).toEqual({
      input: 0.27,
      output: 1.1,
    })
    expect(
      parseCli(['--price-input=2', '--price-cached-input=0.5', '--price-output=8', '--price-currency=EUR'])
        .prices,
    ).toEqual({ input: 2, cachedInput: 0.5, output: 8, currency: 'EUR' })
    expect(parseCli([]).prices).toBeUndefined()
  })

  it('refuses a price that is not a number >= 0, a half-given price and a bad currency', () => {
    expect(() => parseCli(['--price-input=-1', '--price-output', '1'])).toThrow(
      '--price-input must be a price',
    )
    expect(() => parseCli(['--price-input', 'cheap', '--price-output', '1'])).toThrow(
      '--price-input must be a price',
    )
    expect(() => parseCli(['--price-input', ' ', '--price-output', '1'])).toThrow(
      '--price-input must be a price',
    )
    expect(() => parseCli(['--price-output', '1'])).toThrow('--price-input and --price-output go together')
    expect(() => parseCli(['--price-currency', 'EUR'])).toThrow('go together')
    expect(() => parseCli(['--price-input=1', '--price-output=1', '--price-currency=US $'])).toThrow(
      '--price-currency must be a currency code',
    )
  })
})
