import { describe, expect, it } from 'vitest'
import type { JsonValue } from '../../session/index.js'
import { builtinTools } from '../builtin-tools.js'
import { delegateTool } from '../subagents/index.js'
import { ToolRegistry } from './registry.js'
import type { Tool } from './tool.js'

function toolWithSchema(name: string, inputSchema: JsonValue): Tool {
  return {
    spec: { name, description: name, inputSchema },
    kind: 'other',
    effect: 'read',
    title: () => name,
    run: async () => ({ output: 'ran' }),
  }
}

const badSchema = { type: 'object', properties: { n: { type: 'no-such-type' } } }

describe('ToolRegistry', () => {
  it('compiles every built-in schema (registered for a session, a schema is compiled at once)', async () => {
    const registry = new ToolRegistry()
    const delegate = delegateTool({
      sessions: () => {
        throw new Error('not used')
      },
      runTurn: () => {
        throw new Error('not used')
      },
      maxSteps: 1,
      toolNames: () => [],
      permissionsOf: () => {
        throw new Error('not used')
      },
    })
    for (const tool of [...builtinTools(), delegate]) await registry.registerForSession(tool, 'ses_1')
    expect(registry.forSession('ses_1').specs()).toHaveLength(builtinTools().length + 1)
  })

  it("refuses a session's tool whose schema does not compile", async () => {
    const registry = new ToolRegistry()
    await expect(registry.registerForSession(toolWithSchema('bad', badSchema), 'ses_1')).rejects.toThrow(
      /tool bad: inputSchema does not compile/,
    )
    expect(registry.forSession('ses_1').get('bad')).toBeUndefined()
  })

  it('refuses a schema that does not describe an object, global or not', async () => {
    const registry = new ToolRegistry()
    expect(() => registry.register(toolWithSchema('arr', { type: 'array' }))).toThrow(
      /must describe an object/,
    )
    await expect(registry.registerForSession(toolWithSchema('str', 'x'), 'ses_1')).rejects.toThrow(
      /must be a JSON Schema object/,
    )
  })

  it("a global tool's schema that does not compile makes every call invalid, naming why", async () => {
    const entry = new ToolRegistry([toolWithSchema('bad', badSchema)]).forSession('ses_1').get('bad')
    expect(await entry?.invalid({ n: 1 })).toMatch(/^tool bad: inputSchema does not compile/)
    expect(await entry?.invalid({})).toMatch(/^tool bad: inputSchema does not compile/)
  })

  it("validates a global tool's input against its schema (compiled on first use)", async () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }
    const entry = new ToolRegistry([toolWithSchema('count', schema)]).forSession('ses_1').get('count')
    expect(await entry?.invalid({ n: 1 })).toBeUndefined()
    expect(await entry?.invalid({ n: 'one' })).toBe('input.n must be integer')
    expect(await entry?.invalid({})).toBe("input must have required property 'n'")
  })
})

describe('ToolRegistry names', () => {
  it("never lets a session's tool shadow a global one, nor a global one take a session's name", async () => {
    const registry = new ToolRegistry([toolWithSchema('one', { type: 'object' })])
    await expect(
      registry.registerForSession(toolWithSchema('one', { type: 'object' }), 'ses_1'),
    ).rejects.toThrow(/already registered/)
    const remove = await registry.registerForSession(toolWithSchema('two', { type: 'object' }), 'ses_1')
    expect(() => registry.register(toolWithSchema('two', { type: 'object' }))).toThrow(
      /registered by a session/,
    )
    expect(
      registry
        .forSession('ses_1')
        .specs()
        .map((s) => s.name),
    ).toEqual(['one', 'two'])
    expect(
      registry
        .forSession('ses_2')
        .specs()
        .map((s) => s.name),
    ).toEqual(['one'])
    remove()
    expect(
      registry
        .forSession('ses_1')
        .specs()
        .map((s) => s.name),
    ).toEqual(['one'])
  })
})
