import { describe, expect, it } from 'vitest'
import { isObject } from './is.js'

describe('isObject', () => {
  it('accepts plain and class objects, refuses null, arrays and primitives', () => {
    expect([{}, { a: 1 }, new Date(0), Object.create(null)].map(isObject)).toEqual([true, true, true, true])
    expect([null, undefined, [], [1], 'x', 1, true, () => {}].map(isObject)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ])
  })
})
