import { tmpdir } from 'node:os'
import { describe, expect, it } from 'vitest'
import { Normalizer } from './normalize.js'
import { compileRules, parsePointer, RulesError } from './rules.js'

describe('Normalizer (the built-in rules)', () => {
  it('names session ids by first appearance and replaces every later use of them', () => {
    const n = new Normalizer()
    const id = '5b1c3a52-8f6e-4a55-9d6b-2f4a0e1c9d77'
    expect(n.normalize({ id: 1, result: { sessionId: id } }, 'out', 'session/new')).toEqual({
      id: 1,
      result: { sessionId: '<session-1>' },
    })
    expect(
      n.normalize({ result: { sessionId: 'ses_2', _meta: { parent: id, path: `/s/${id}.jsonl` } } }, 'out'),
    ).toEqual({
      result: { sessionId: '<session-2>', _meta: { parent: '<session-1>', path: '/s/<session-1>.jsonl' } },
    })
    // A short id is replaced as a whole value only, never inside other text.
    expect(n.normalize({ params: { note: 'ses_2 is short', other: 'ses_2' } }, 'in')).toEqual({
      params: { note: 'ses_2 is short', other: '<session-2>' },
    })
  })

  it('hides the ids of agent requests and of the answers to them, not the client request ids', () => {
    const n = new Normalizer()
    expect(n.normalize({ id: 7, method: 'fs/read_text_file', params: {} }, 'out')).toMatchObject({
      id: '<agent-request-id>',
    })
    expect(n.normalize({ id: 7, result: {} }, 'in')).toMatchObject({ id: '<agent-request-id>' })
    expect(n.normalize({ id: 8, result: {} }, 'in')).toMatchObject({ id: 8 })
    expect(n.normalize({ id: 7, method: 'session/prompt', params: {} }, 'in')).toMatchObject({ id: 7 })
  })

  it('replaces times, temp paths and initialize versions, and nothing else', () => {
    const n = new Normalizer()
    const temp = `${tmpdir()}/run-Ab12/store/x.jsonl`
    expect(
      n.normalize(
        {
          result: {
            agentInfo: { name: 'a', version: '1.2.3' },
            at: '2026-11-30T13:01:02.345Z',
            note: `done at 2026-11-30T13:01:02Z in ${temp}`,
            plain: '2026-11-30',
            count: 3,
          },
        },
        'out',
        'initialize',
      ),
    ).toEqual({
      result: {
        agentInfo: { name: 'a', version: '<version>' },
        at: '<time>',
        note: 'done at <time> in <tmp>/store/x.jsonl',
        plain: '2026-11-30',
        count: 3,
      },
    })
    expect(n.normalize({ result: { agentInfo: { version: '1.2.3' } } }, 'out', 'session/new')).toEqual({
      result: { agentInfo: { version: '1.2.3' } },
    })
  })

  it('replaces the v2 initialize versions (info on either side)', () => {
    const n = new Normalizer()
    const asked = { method: 'initialize', params: { protocolVersion: 2, info: { name: 'c', version: '9' } } }
    expect(n.normalize(asked, 'in', 'initialize')).toEqual({
      method: 'initialize',
      params: { protocolVersion: 2, info: { name: 'c', version: '<version>' } },
    })
    expect(n.normalize({ result: { info: { name: 'a', version: '0.4.0' } } }, 'out', 'initialize')).toEqual({
      result: { info: { name: 'a', version: '<version>' } },
    })
  })

  it('runs the user rules first: ignore, rewrite and pattern, filtered by method and direction', () => {
    const rules = compileRules([
      { ignore: '/params/update/content/*/uri' },
      { rewrite: '/result/build', to: '<build>', method: 'initialize' },
      { pattern: '\\d+ ms', replace: '<n> ms', dir: 'out' },
      { ignore: '/params/list/*' },
    ])
    const n = new Normalizer(rules)
    expect(
      n.normalize(
        { params: { update: { content: [{ uri: 'a', text: 'took 12 ms' }] }, list: [1, 2, 3] } },
        'out',
        'session/update',
      ),
    ).toEqual({ params: { update: { content: [{ text: 'took <n> ms' }] }, list: [] } })
    expect(n.normalize({ params: { text: '12 ms' } }, 'in')).toEqual({ params: { text: '12 ms' } })
    expect(n.normalize({ result: { build: 42 } }, 'out', 'initialize')).toEqual({
      result: { build: '<build>' },
    })
    expect(n.normalize({ result: { build: 42 } }, 'out', 'session/new')).toEqual({ result: { build: 42 } })
  })
})

describe('user rules', () => {
  it('refuse malformed rules, naming the rule', () => {
    expect(() => compileRules([{ ignore: 'params' }])).toThrow(RulesError)
    expect(() => compileRules([{ ignore: '/a', pattern: 'x' }], 'r.json')).toThrow(
      'r.json[0]: needs exactly one of',
    )
    expect(() => compileRules([{ rewrite: '/a' }])).toThrow('rewrite needs "to"')
    expect(() => compileRules([{ pattern: '(', replace: '' }])).toThrow('bad pattern')
    expect(() => compileRules([{ pattern: 'x' }])).toThrow('pattern needs "replace"')
    expect(() => compileRules([{ ignore: '/a', dir: 'up' }])).toThrow('dir must be')
    expect(() => compileRules([{ ignore: '/a', extra: 1 }])).toThrow('unknown field "extra"')
    expect(() => compileRules([{ ignore: '' }])).toThrow('a place inside the message')
    expect(() => compileRules(['x'])).toThrow('a rule must be an object')
  })

  it('read JSON pointers with ~0 and ~1 escapes', () => {
    expect(parsePointer('/a~1b/c~0d/0')).toEqual(['a/b', 'c~d', '0'])
    expect(parsePointer('')).toEqual([])
  })
})
