import { describe, expect, it, vi } from 'vitest'
import { outputValidator } from './output-validator.js'

describe('the MCP client’s output-schema validator', () => {
  it('writes nothing to the console for formats it does not know', () => {
    const warn = vi.spyOn(console, 'warn')
    const log = vi.spyOn(console, 'log')
    try {
      const check = outputValidator().getValidator({
        type: 'object',
        properties: { c: { type: 'string', format: 'color-hex' }, u: { type: 'string', format: 'uri' } },
      })
      expect(check({ c: 'red', u: 'https://example.org/' }).valid).toBe(true)
      expect(check({ u: 'not a uri' }).valid).toBe(false)
      expect(warn).not.toHaveBeenCalled()
      expect(log).not.toHaveBeenCalled()
    } finally {
      warn.mockRestore()
      log.mockRestore()
    }
  })

  it('evaluates patterns in linear time (RE2): a catastrophic one for backtracking engines answers', () => {
    const check = outputValidator().getValidator({ type: 'string', pattern: '^(a+)+$' })
    expect(check(`${'a'.repeat(5000)}!`).valid).toBe(false)
    expect(check('aaaa').valid).toBe(true)
  })

  it('a schema that does not compile refuses that tool’s results, saying why, instead of throwing', () => {
    const check = outputValidator().getValidator({ type: 'string', pattern: '(?<=a)b' })
    const result = check('ab')
    expect(result.valid).toBe(false)
    expect(result.errorMessage).toMatch(/^its outputSchema does not compile/)
  })
})
