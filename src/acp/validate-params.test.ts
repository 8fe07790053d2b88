import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { validateAcpDefinition } from '../../test/support/acp-schema.js'
import { LoadSessionRequest } from './schema/acp-load.gen.js'
import { ACP_AGENT_METHODS, type AcpMethodName } from './schema/acp-methods.gen.js'
import { validateParams } from './validate-params.js'

/** Valid params of each method this server serves. */
const SAMPLES: Partial<Record<AcpMethodName, unknown[]>> = {
  initialize: [
    { protocolVersion: 1 },
    {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: false }, terminal: true },
      clientInfo: { name: 'zed', version: '1.0', title: null },
    },
  ],
  'session/new': [
    { cwd: '/w', mcpServers: [] },
    {
      cwd: '/w',
      mcpServers: [{ name: 'fs', command: '/bin/x', args: ['-v'], env: [{ name: 'A', value: 'b' }] }],
      additionalDirectories: ['/a'],
      _meta: { any: 1 },
    },
  ],
  'session/load': [{ sessionId: 's', cwd: '/w', mcpServers: [] }],
  'session/resume': [{ sessionId: 's', cwd: '/w' }],
  'session/fork': [{ sessionId: 's', cwd: '/w', mcpServers: [], _meta: { dsh: { boundary: 3 } } }],
  'session/list': [{}, { cwd: '/w', cursor: 'c' }],
  'session/close': [{ sessionId: 's' }],
  'session/delete': [{ sessionId: 's' }],
  'session/prompt': [
    {
      sessionId: 's',
      prompt: [
        { type: 'text', text: 'hi' },
        { type: 'resource_link', uri: 'file:///a', name: 'a' },
        { type: 'resource', resource: { uri: 'file:///b', text: 'x' } },
      ],
    },
  ],
  'session/cancel': [{ sessionId: 's' }],
  'session/set_mode': [{ sessionId: 's', modeId: 'ask' }],
  'session/set_config_option': [
    { sessionId: 's', configId: 'model', value: 'echo' },
    { sessionId: 's', configId: 'x', type: 'boolean', value: true },
  ],
}

const REPLACEMENTS: unknown[] = [null, 0, -1, 1.5, 70000, 'x', '', true, [], {}, [1], { type: 'text' }]

/** Each sample with one field removed or replaced, at every depth. */
function* mutations(value: unknown): Generator<unknown> {
  if (typeof value !== 'object' || value === null) return
  const entries = Object.entries(value)
  for (const [key, child] of entries) {
    const rest = Array.isArray(value) ? value.filter((_, i) => String(i) !== key) : { ...value }
    if (!Array.isArray(value)) delete (rest as Record<string, unknown>)[key]
    yield rest
    for (const replacement of REPLACEMENTS) {
      yield Array.isArray(value)
        ? value.map((v, i) => (String(i) === key ? replacement : v))
        : { ...value, [key]: replacement }
    }
    for (const deeper of mutations(child)) {
      yield Array.isArray(value)
        ? value.map((v, i) => (String(i) === key ? deeper : v))
        : { ...value, [key]: deeper }
    }
  }
}

async function verdict(method: AcpMethodName, params: unknown): Promise<boolean> {
  try {
    await validateParams(method, params)
    return true
  } catch (error) {
    expect(error).toMatchObject({ code: -32602, data: { field: expect.any(String) } })
    return false
  }
}

describe('ACP params validation', () => {
  it('the generated validators are what the generator makes from the installed SDK schema', () => {
    expect(() =>
      execFileSync(process.execPath, ['scripts/generate-acp-validators.mjs', '--check'], { stdio: 'pipe' }),
    ).not.toThrow()
  })

  it.each(Object.entries(SAMPLES))(
    '%s: agrees with the official schema on samples and their mutations',
    async (name, samples) => {
      const method = name as AcpMethodName
      const entry = ACP_AGENT_METHODS[method]
      let checked = 0
      for (const sample of samples ?? []) {
        for (const params of [sample, ...mutations(sample)]) {
          const expected = validateAcpDefinition(entry.params, params).length === 0
          expect([params, await verdict(method, params)]).toEqual([params, expected])
          checked++
        }
      }
      expect(checked).toBeGreaterThan(10)
    },
  )

  it("session/load's validator alone (the early load's, acp-load.gen) agrees with the official schema", () => {
    const samples = [
      ...(SAMPLES['session/load'] ?? []),
      {
        sessionId: 's',
        cwd: '/w',
        mcpServers: [
          { name: 'fs', command: '/bin/x', args: [], env: [] },
          { type: 'http', name: 'web', url: 'https://x', headers: [{ name: 'A', value: 'b' }] },
        ],
        additionalDirectories: ['/a'],
        _meta: { dsh: { afterSeq: 3 } },
      },
    ]
    let checked = 0
    for (const sample of samples) {
      for (const params of [sample, ...mutations(sample)]) {
        const expected = validateAcpDefinition(ACP_AGENT_METHODS['session/load'].params, params).length === 0
        expect([params, LoadSessionRequest(params)]).toEqual([params, expected])
        checked++
      }
    }
    expect(checked).toBeGreaterThan(100)
  })

  it('names the offending field in the message and in data.field', () => {
    expect(() => validateParams('session/new', { mcpServers: [] })).toThrow(
      expect.objectContaining({ message: 'session/new: cwd is required', data: { field: 'cwd' } }),
    )
    expect(() => validateParams('session/new', { cwd: '/w', mcpServers: [{ name: 'x' }] })).toThrow(
      'session/new: mcpServers[0].url is required or mcpServers[0].command is required',
    )
    expect(() => validateParams('initialize', { protocolVersion: 65536 })).toThrow(
      'initialize: protocolVersion must be <= 65535',
    )
    expect(() => validateParams('session/list', null)).toThrow('session/list: params must be of type object')
    expect(validateParams('session/list', undefined)).toEqual({})
  })
})
