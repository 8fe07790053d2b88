import { describe, expect, it } from 'vitest'
import { boundedError, clipMiddle, MAX_ERROR_MESSAGE } from './bounded-error.js'

describe('boundedError (issue 34 #10)', () => {
  it('keeps a short error as it is', () => {
    const error = { code: -32602, message: 'bad', data: { errors: ['a', 'b'] } }
    expect(boundedError(error)).toEqual(error)
  })

  it('cuts a long message in the middle, keeping how it starts and ends', () => {
    const message = `session ${'x'.repeat(1_000_000)} not found`
    const bounded = boundedError({ code: -32002, message })
    expect(bounded.message.length).toBeLessThan(MAX_ERROR_MESSAGE + 60)
    expect(bounded.message).toMatch(/^session x+… \[\d+ characters left out\] …x+ not found$/)
  })

  it('bounds the strings, items and depth of data', () => {
    const deep: Record<string, unknown> = {}
    let at = deep
    for (let i = 0; i < 20; i++) {
      at.next = {}
      at = at.next as Record<string, unknown>
    }
    const data = { id: 'y'.repeat(100_000), list: Array.from({ length: 500 }, (_, i) => i), deep }
    const bounded = boundedError({ code: 1, message: 'm', data })
    expect(JSON.stringify(bounded).length).toBeLessThan(2000)
    expect((bounded.data as { list: unknown[] }).list.at(-1)).toBe('… 450 more')
  })

  it('clipMiddle leaves a text within the limit alone', () => {
    expect(clipMiddle('abc', 3)).toBe('abc')
  })
})
