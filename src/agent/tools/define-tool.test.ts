import { describe, expect, it } from 'vitest'
import { defineTool } from './define-tool.js'
import { type ToolContext, ToolFailure } from './tool.js'

const context: ToolContext = {
  sessionId: 'ses_1',
  cwd: '/repo',
  callId: 'c1',
  turn: 1,
  client: {},
  signal: new AbortController().signal,
  progress: () => {},
}

/** A tool that doubles `n`, recording every `n` its definition ran with. */
function doubler() {
  const doubled: number[] = []
  const tool = defineTool({
    spec: {
      name: 'double',
      description: 'Doubles n',
      inputSchema: {
        type: 'object',
        properties: { n: { type: 'integer' } },
        required: ['n'],
        additionalProperties: false,
      } as const,
    },
    kind: 'other',
    effect: 'read',
    title: () => 'Double',
    async run(input) {
      doubled.push(input.n)
      return { output: input.n * 2 }
    },
  })
  return { tool, doubled }
}

describe('defineTool', () => {
  it('runs the definition with input its schema accepts, typed as the schema says', async () => {
    const { tool: double, doubled } = doubler()
    await expect(double.run({ n: 21 }, context)).resolves.toEqual({ output: 42 })
    expect(doubled).toEqual([21])
  })

  it('refuses input its schema refuses, saying why, without running the definition', async () => {
    const { tool: double, doubled } = doubler()
    await expect(double.run({ n: 'two' }, context)).rejects.toThrow(ToolFailure)
    await expect(double.run({ n: 'two' }, context)).rejects.toThrow('invalid input: input.n must be integer')
    await expect(double.run({ n: 1, extra: true }, context)).rejects.toThrow(
      /must NOT have additional properties/,
    )
    expect(doubled).toEqual([])
  })

  it('keeps what the editor is shown as the definition gives it', () => {
    const { tool: double } = doubler()
    expect(double.spec.name).toBe('double')
    expect(double.title({ n: 'malformed' })).toBe('Double')
    expect([double.kind, double.effect]).toEqual(['other', 'read'])
  })
})
