import { describe, expect, it } from 'vitest'
import { createSchemaCompiler } from './schema-compiler.js'

describe('schema compiler (untrusted schemas)', () => {
  it('matches a catastrophic pattern in linear time: the check returns at all', () => {
    const check = createSchemaCompiler()({
      type: 'object',
      properties: { s: { type: 'string', pattern: '^(a|a)*$' }, t: { type: 'string', pattern: '^(.+)+#' } },
    })
    // With a backtracking engine each of these takes longer than the age of the universe.
    expect(check({ s: `${'a'.repeat(60)}b` })).toBe('input.s must match pattern "^(a|a)*$"')
    expect(check({ t: 'x'.repeat(44) })).toBe('input.t must match pattern "^(.+)+#"')
    expect(check({ s: 'aaaa', t: 'ab#' })).toBeUndefined()
  })

  it('reads ECMAScript \\u escapes, and refuses lookaround and backreferences by name', () => {
    const compile = createSchemaCompiler()
    const check = compile({ type: 'object', patternProperties: { '^\\u0061\\u{62}$': { type: 'number' } } })
    expect(check({ ab: 'x' })).toMatch(/must be number/)
    expect(check({ '\\u0061b': 'x' })).toBeUndefined()
    expect(() => compile({ type: 'object', properties: { s: { pattern: '^(?!x)' } } })).toThrow(
      /pattern "\^\(\?!x\)" is not supported/,
    )
    expect(() => compile({ type: 'object', properties: { s: { pattern: '(a)\\1' } } })).toThrow(
      /is not supported/,
    )
  })

  it('two compilers each take a schema with the same $id', () => {
    const schema = { $id: 'https://example.com/tool.schema.json', type: 'object' } as const
    expect(() => createSchemaCompiler()(schema)).not.toThrow()
    expect(() => createSchemaCompiler()({ ...schema })).not.toThrow()
  })
})
