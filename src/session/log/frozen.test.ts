import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SessionErrorCode } from '../errors.js'
import { deepFreeze, freezeJsonCopy, MAX_JSON_DEPTH, storableEventData } from './frozen.js'

function nested(depth: number): unknown {
  let value: unknown = 1
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { a: value } : [value]
  return value
}

describe('freezeJsonCopy', () => {
  it('keeps a __proto__ key as an own field, not as the prototype', () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"b":1}')
    const copy = freezeJsonCopy(parsed) as Record<string, unknown>
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.keys(copy)).toEqual(['__proto__', 'b'])
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true},"b":1}')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('refuses what is not plain JSON, naming where it is', () => {
    const cycle: Record<string, unknown> = { a: 1 }
    cycle.self = { back: cycle }
    expect(() => freezeJsonCopy({ x: [1, cycle] })).toThrow('$.x[1].self.back is a circular reference')
    expect(() => freezeJsonCopy({ when: new Date(0) })).toThrow('$.when is a Date object, not plain JSON')
    expect(() => freezeJsonCopy({ a: [0, Number.NaN] })).toThrow('$.a[1] is NaN, which JSON cannot hold')
    expect(() => freezeJsonCopy({ f: () => 1 })).toThrow('$.f is function, which JSON cannot hold')
    expect(() => freezeJsonCopy({ n: 1n })).toThrow('$.n is bigint, which JSON cannot hold')
    expect(() => freezeJsonCopy(new Map())).toThrow('$ is a Map object, not plain JSON')
  })

  it('copies: the result is frozen all the way down and shares nothing with the input', () => {
    const input = { a: [{ b: 'c' }], d: null, e: undefined, f: Object.create(null) }
    const copy = freezeJsonCopy(input) as { a: { b: string }[]; f: object }
    expect(copy).toEqual({ a: [{ b: 'c' }], d: null, f: {} })
    expect('e' in copy).toBe(false)
    expect(Object.isFrozen(copy) && Object.isFrozen(copy.a) && Object.isFrozen(copy.a[0])).toBe(true)
    expect(copy.a).not.toBe(input.a)
    expect(Object.isFrozen(input.a)).toBe(false)
  })

  it(`accepts ${MAX_JSON_DEPTH} levels and refuses one more, naming a short path`, () => {
    expect(() => freezeJsonCopy(nested(MAX_JSON_DEPTH))).not.toThrow()
    expect(() => freezeJsonCopy(nested(MAX_JSON_DEPTH + 1))).toThrow(/nests deeper than 256 levels/)
    expect(() => freezeJsonCopy(nested(5000))).toThrow(/^.{0,200}$/)
  })

  it('storableEventData refuses deep data with INVALID_EVENT, counting the event as level 1', () => {
    expect(() => storableEventData('x/y', { v: nested(MAX_JSON_DEPTH - 2) })).not.toThrow()
    expect(() => storableEventData('x/y', { v: nested(MAX_JSON_DEPTH - 1) })).toThrow(
      expect.objectContaining({ code: SessionErrorCode.INVALID_EVENT }),
    )
  })

  it('whatever it accepts serializes and parses back equal, own keys and all', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.nat({ max: 300 }), (value, depth) => {
        let wrapped: unknown = value
        for (let i = 0; i < depth; i++) wrapped = { __proto__x: wrapped, ['__proto__']: i }
        let copy: unknown
        try {
          copy = freezeJsonCopy(JSON.parse(JSON.stringify(wrapped)))
        } catch (error) {
          expect((error as Error).message).toMatch(/nests deeper/)
          return
        }
        const text = JSON.stringify(copy)
        expect(JSON.stringify(JSON.parse(text))).toBe(JSON.stringify(JSON.parse(JSON.stringify(wrapped))))
      }),
      { numRuns: 200 },
    )
  })
})

describe('deepFreeze', () => {
  it('freezes a parsed value 20,000 levels deep without overflowing the stack', () => {
    const value = JSON.parse(`${'['.repeat(20_000)}${']'.repeat(20_000)}`)
    deepFreeze(value)
    let item = value
    for (let i = 0; i < 20_000; i++) {
      expect(Object.isFrozen(item)).toBe(true)
      item = item[0]
    }
  })
})
