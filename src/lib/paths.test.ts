import { describe, expect, it } from 'vitest'
import { isWithin } from './paths.js'

describe('isWithin', () => {
  it('holds for the root itself and what lies under it, including names that begin with two dots', () => {
    expect(isWithin('/p', '/p')).toBe(true)
    expect(isWithin('/p', '/p/a/b')).toBe(true)
    expect(isWithin('/p', '/p/..cache')).toBe(true)
  })

  it('fails for the parent, siblings sharing a prefix, and paths elsewhere', () => {
    expect(isWithin('/p', '/')).toBe(false)
    expect(isWithin('/p', '/p2')).toBe(false)
    expect(isWithin('/p', '/q/p')).toBe(false)
    expect(isWithin('/p/a', '/p/a/../b')).toBe(false)
  })
})
