import type { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { request, startAgent } from '../../../test/support/turn-harness.js'
import { updateOf } from '../../../test/support/update-of.js'
import { createScriptProvider } from '../providers/script.js'
import { parseModelScript } from '../providers/script-format.js'
import type { Tool } from '../tools/tool.js'
import type { ToolCallContent } from '../types.js'
import { cutForModel, MODEL_OUTPUT_LIMIT } from './tool-execution.js'

describe('long tool output', () => {
  let ctx: Context | undefined
  afterEach(async () => {
    await ctx?.stop()
    ctx = undefined
  })

  it('is cut for the model with a note, while the editor gets the whole text', async () => {
    const long = 'y'.repeat(MODEL_OUTPUT_LIMIT + 10)
    const tool: Tool = {
      spec: { name: 'dump', description: 'prints a lot', inputSchema: { type: 'object' } },
      kind: 'read',
      effect: 'read',
      title: () => 'Dump',
      run: async () => ({ output: long }),
    }
    const turn = [[{ toolCall: { name: 'dump', input: {} } }], [{ text: 'ok' }]]
    ctx = await startAgent({ provider: createScriptProvider(parseModelScript([turn])), tools: [tool] })
    const session = ctx.sessions.create()
    const req = request('go')
    await ctx.agent.runTurn(session, req)
    const result = session.events().find((e) => e.type === 'tool/result')
    const note = `\n[output cut for the model: showing the first ${MODEL_OUTPUT_LIMIT} of ${long.length} characters]`
    expect(result?.data.output).toBe(long.slice(0, MODEL_OUTPUT_LIMIT) + note)
    const shown = req.live.find(
      (u) => u.update.sessionUpdate === 'tool_call_update' && u.update.status === 'completed',
    )
    expect(updateOf(shown?.update, 'tool_call_update')?.content).toEqual([
      { type: 'content', content: { type: 'text', text: long } },
    ])
    const kinds = req.live.filter((u) => u.update.sessionUpdate !== 'session_info_update')
    expect(
      kinds.map((u) => [u.update.sessionUpdate, 'status' in u.update ? u.update.status : undefined]),
    ).toEqual([
      ['tool_call', 'pending'],
      ['tool_call_update', 'in_progress'],
      ['tool_call_update', 'completed'],
      ['agent_message_chunk', undefined],
    ])
  })

  it('short output and a tool’s own content stay as they are', () => {
    expect(cutForModel({ output: 'short' })).toEqual({ output: 'short' })
    const diff: ToolCallContent[] = [{ type: 'diff', path: '/a', oldText: null, newText: 'x' }]
    const cut = cutForModel({ output: 'z'.repeat(MODEL_OUTPUT_LIMIT + 1), content: diff })
    expect(cut.content).toBe(diff)
  })
})
