import type { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import {
  afterTools,
  call,
  childrenOf,
  lastUser,
  modelOf,
  results,
  text,
} from '../../../test/support/delegate-model.js'
import { request, startAgent } from '../../../test/support/turn-harness.js'
import { builtinTools } from '../builtin-tools.js'
import { UPDATE_PLAN_TOOL } from '../plan/update-plan-tool.js'
import { ASK_USER_TOOL } from '../questions/ask-user.js'
import { AgentService } from '../service.js'
import { writeTextFileTool } from '../tools/index.js'
import type { Tool } from '../tools/tool.js'
import { DELEGATE_TOOL } from './delegate-tool.js'

/** The built-in tools offered to a client that shows no forms (so not `ask_user`). */
const offeredTools = () => builtinTools().filter((t) => t.offeredTo?.({}) ?? true)

let ctx: Context | undefined
afterEach(async () => {
  await ctx?.stop()
  ctx = undefined
})

describe('delegate: what a subagent may do', () => {
  it('a child does not ask the user: ask_user is the parent’s only, refused if named or called', async () => {
    const model = modelOf((req) => {
      const user = lastUser(req)
      if (afterTools(req)) return [text('ok')]
      if (user === 'ask from the child') return [call('q1', ASK_USER_TOOL, { question: 'Which?' })]
      if (user === 'name it') return [call('d1', DELEGATE_TOOL, { task: 'x', tools: [ASK_USER_TOOL] })]
      return [call('d1', DELEGATE_TOOL, { task: 'ask from the child' })]
    })
    ctx = await startAgent({ provider: model })
    const parent = ctx.sessions.create()
    await ctx.agent.runTurn(parent, request('name it'))
    expect(String(results(parent).at(-1)?.data.output)).toMatch(
      /other than delegate and ask_user.*not: ask_user/,
    )
    await ctx.agent.runTurn(parent, request('delegate'))
    const [child] = childrenOf(ctx, parent)
    expect(child ? results(child).map((r) => r.data.output) : []).toEqual([
      `The tool ${ASK_USER_TOOL} is not available here.`,
    ])
  })

  it('a child may use only the parent’s tools, never delegate, and stops at its step bound', async () => {
    const probe: Tool = {
      spec: { name: 'probe', description: 'probe', inputSchema: { type: 'object' } },
      kind: 'other',
      effect: 'read',
      title: () => 'probe',
      run: async () => ({ output: 'probed' }),
    }
    const model = modelOf((req) => {
      const user = lastUser(req)
      if (user === 'loop') return [call(`p${req.messages.length}`, 'probe', {})]
      if (user === 'nest') {
        return afterTools(req) ? [text('nested answer')] : [call('n1', DELEGATE_TOOL, { task: 'deeper' })]
      }
      if (afterTools(req)) return [text('ok')]
      if (user === 'bad tools') return [call('d1', DELEGATE_TOOL, { task: 'x', tools: ['probe', 'rm'] })]
      if (user === 'nesting') return [call('d1', DELEGATE_TOOL, { task: 'nest' })]
      return [call('d1', DELEGATE_TOOL, { task: 'loop' })]
    })
    ctx = await startAgent({ provider: model, tools: [probe], subagents: { maxSteps: 3 } })
    const parent = ctx.sessions.create()

    await ctx.agent.runTurn(parent, request('bad tools'))
    expect(results(parent).at(-1)?.data).toMatchObject({ isError: true })
    expect(String(results(parent).at(-1)?.data.output)).toMatch(/may only use tools .*not: rm/)
    expect(childrenOf(ctx, parent)).toHaveLength(0)

    await ctx.agent.runTurn(parent, request('nesting'))
    const [nested] = childrenOf(ctx, parent)
    const nestedResults = nested ? results(nested).map((r) => r.data) : []
    expect(nestedResults).toEqual([
      expect.objectContaining({ isError: true, output: `The tool ${DELEGATE_TOOL} is not available here.` }),
    ])
    expect(results(parent).at(-1)?.data.output).toBe('nested answer')

    await ctx.agent.runTurn(parent, request('looping'))
    const looping = childrenOf(ctx, parent).at(-1)
    expect(looping?.events().at(-1)?.data).toMatchObject({ reason: 'max-turn-requests' })
    expect(looping ? results(looping).length : 0).toBe(3)
    expect(results(parent).at(-1)?.data).toMatchObject({ isError: true })
    expect(String(results(parent).at(-1)?.data.output)).toMatch(/stopped at its step bound/)
  })
})

describe('delegate in a read-only session', () => {
  it('the child inherits read-only: it is offered no tool that changes anything, and a write it tries is refused', async () => {
    const model = modelOf((req) => {
      const user = lastUser(req)
      if (user === 'first') return [text('ok')]
      if (user === 'write a file') {
        if (afterTools(req)) return [text('could not write')]
        return [call('w1', writeTextFileTool.spec.name, { path: '/repo/out.txt', content: 'x' })]
      }
      if (afterTools(req)) return [text('done')]
      return [call('d1', DELEGATE_TOOL, { task: 'write a file' })]
    })
    ctx = await startAgent({ provider: model })
    const parent = ctx.sessions.create(undefined, { meta: { cwd: '/repo' } })
    await ctx.agent.runTurn(parent, request('first'))
    parent.append({ type: 'config/set', data: { option: 'mode', value: 'read-only' } })
    const outcome = await ctx.agent.runTurn(parent, request('delegate it'))
    expect(outcome.endReason).toBe('completed')

    const [child] = childrenOf(ctx, parent)
    expect(child?.config.mode).toBe('read-only')
    const childFirst = model.requests.find((r) => r.sessionId === child?.id)
    const offered = childFirst?.tools.map((t) => t.name) ?? []
    const named = (tools: readonly Tool[]) => tools.map((t) => t.spec.name)
    const reading = named(offeredTools().filter((t) => t.effect === 'read'))
    const changing = named(offeredTools().filter((t) => t.effect !== 'read'))
    expect(changing).toContain('write_text_file')
    expect(offered).toEqual(expect.arrayContaining(reading))
    for (const name of changing) expect(offered).not.toContain(name)
    expect(childFirst?.tools).toEqual(model.requests[1]?.tools)
    const [refused] = child ? results(child) : []
    expect(refused?.data.isError).toBe(true)
  })
})

describe('the delegate tool’s registration', () => {
  it('is offered after the other tools by default, and not at all with subagents: false', async () => {
    const seen = modelOf(() => [text('hi')])
    ctx = await startAgent({ provider: seen })
    await ctx.agent.runTurn(ctx.sessions.create(), request('x'))
    const builtins = offeredTools().map((t) => t.spec.name)
    expect(seen.requests[0]?.tools.map((t) => t.name)).toEqual([...builtins, UPDATE_PLAN_TOOL, DELEGATE_TOOL])
    await ctx.stop()
    const without = modelOf(() => [text('hi')])
    ctx = await startAgent({ provider: without, subagents: false })
    await ctx.agent.runTurn(ctx.sessions.create(), request('x'))
    expect(without.requests[0]?.tools.map((t) => t.name)).toEqual([...builtins, UPDATE_PLAN_TOOL])
  })

  it('refuses bounds that are not positive integers', async () => {
    const provider = modelOf(() => [])
    ctx = await startAgent({ provider })
    for (const subagents of [{ maxConcurrent: 0 }, { maxSteps: 1.5 }]) {
      expect(() => new AgentService(ctx as Context, { provider, subagents })).toThrow(RangeError)
    }
  })
})
