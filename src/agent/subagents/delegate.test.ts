import type { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { request, startAgent } from '../../../test/support/turn-harness.js'
import { abortable } from '../../lib/abort.js'
import type { ContentBlock, CoreEvent, Session, SessionEvent } from '../../session/index.js'
import { AgentService } from '../service.js'
import { builtinTools } from '../tools/index.js'
import type { Tool } from '../tools/tool.js'
import type { ModelChunk, ModelProvider, ModelRequest, SubagentLink } from '../types.js'
import { DELEGATE_TOOL } from './delegate-tool.js'

let ctx: Context | undefined
afterEach(async () => {
  await ctx?.stop()
  ctx = undefined
})

type Answer = (req: ModelRequest, signal: AbortSignal) => ModelChunk[] | Promise<ModelChunk[]>

/** A provider whose every step is `answer(request)`; it records every request. */
function modelOf(answer: Answer): ModelProvider & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = []
  return {
    name: 'fn',
    requests,
    stream(req, signal) {
      requests.push(req)
      return abortable(
        (async function* () {
          for (const chunk of await answer(req, signal)) yield chunk
        })(),
        signal,
      )
    },
  }
}

const text = (t: string): ModelChunk => ({ type: 'text', text: t })
const call = (callId: string, name: string, input: unknown): ModelChunk =>
  ({ type: 'tool_call', callId, name, input }) as ModelChunk

/** The text of the last user message of a request (the task, for a child's first request). */
function lastUser(req: ModelRequest): string {
  const users = req.messages.filter((m) => m.role === 'user')
  const first = (users.at(-1)?.content as readonly ContentBlock[] | undefined)?.[0]
  return first?.type === 'text' ? first.text : ''
}

/** True when the request's last message is a tool result (the model's turn to go on). */
const afterTools = (req: ModelRequest) => req.messages.at(-1)?.role === 'tool'

/** The session's own tool results (not those it inherited from its parent). */
const results = (s: Session) =>
  s
    .events()
    .slice(s.header.seedLength ?? 0)
    .filter((e): e is CoreEvent<'tool/result'> => e.type === 'tool/result')
const shape = (events: readonly SessionEvent[]) => events.map((e) => e.type)

function childrenOf(c: Context, parent: Session): Session[] {
  return c.sessions.liveSessions().filter((s) => s.header.parentSession === parent.id)
}

describe('delegate: a fork-based subagent', () => {
  it('round trip: the child starts from the parent’s completed prefix plus the task; its answer is the result', async () => {
    const model = modelOf((req) => {
      const user = lastUser(req)
      if (user === 'first') return [text('first answer')]
      if (user === 'count the files') return [text('there are 3 files')]
      if (afterTools(req)) return [text('the subagent says 3')]
      return [call('d1', DELEGATE_TOOL, { task: 'count the files', title: 'Counter' })]
    })
    ctx = await startAgent({ provider: model })
    const parent = ctx.sessions.create(undefined, { meta: { cwd: '/repo' } })
    await ctx.agent.runTurn(parent, request('first'))
    const prefixEnd = parent.lastSeq
    const outcome = await ctx.agent.runTurn(parent, request('delegate it'))
    expect(outcome.endReason).toBe('completed')

    const [child] = childrenOf(ctx, parent)
    expect(child).toBeDefined()
    if (!child) return
    const delegateCall = parent.events().find((e) => e.type === 'tool/call') as CoreEvent<'tool/call'>
    expect(child.header).toMatchObject({
      cwd: '/repo',
      parentSession: parent.id,
      seedLength: prefixEnd,
      title: 'Counter',
      subagent: { turn: 2, callId: delegateCall.data.callId },
    })
    expect(child.events().slice(0, prefixEnd)).toEqual(parent.events().slice(0, prefixEnd))
    expect(shape(child.events().slice(prefixEnd))).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
    // Requests: parent turn 1, parent turn 2 step 1, the child, parent turn 2 step 2.
    const [, parentStep1, childFirst, parentStep2] = model.requests
    expect(childFirst?.sessionId).toBe(child.id)
    const shared = (parentStep1?.messages.length ?? 0) - 1
    expect(childFirst?.messages.slice(0, shared)).toEqual(parentStep1?.messages.slice(0, shared))
    expect(childFirst?.messages.slice(shared)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'count the files' }] },
    ])
    expect(childFirst?.tools).toEqual(parentStep1?.tools)
    expect(childFirst?.cwd).toBe(parentStep1?.cwd)
    expect(results(parent).map((r) => r.data.output)).toEqual(['there are 3 files'])
    expect(parentStep2?.messages.at(-1)).toMatchObject({ role: 'tool', content: 'there are 3 files' })
  })

  it('several delegations in one step run concurrently, at most maxConcurrent at once, results in call order', async () => {
    let inFlight = 0
    let peak = 0
    const release: Array<() => void> = []
    const model = modelOf(async (req) => {
      const user = lastUser(req)
      if (user.startsWith('task ')) {
        inFlight++
        peak = Math.max(peak, inFlight)
        await new Promise<void>((resolve) => release.push(resolve))
        inFlight--
        return [text(`done ${user}`)]
      }
      if (afterTools(req)) return [text('all done')]
      return ['a', 'b', 'c'].map((n) => call(`d_${n}`, DELEGATE_TOOL, { task: `task ${n}` }))
    })
    ctx = await startAgent({ provider: model, subagents: { maxConcurrent: 2 } })
    const parent = ctx.sessions.create()
    const running = ctx.agent.runTurn(parent, request('go'))
    const waitFor = async (n: number) => {
      while (release.length < n) await new Promise((resolve) => setTimeout(resolve, 5))
    }
    await waitFor(2)
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(release.length).toBe(2)
    // Finish the second first: the third starts in its slot; results still come in call order.
    release.splice(1, 1)[0]?.()
    await waitFor(2)
    for (const next of release.splice(0)) next()
    await waitFor(0)
    while (ctx.agent.isRunning(parent.id)) {
      for (const next of release.splice(0)) next()
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    expect((await running).endReason).toBe('completed')
    expect(peak).toBe(2)
    expect(results(parent).map((r) => [r.data.callId, r.data.output])).toEqual([
      ['d_a', 'done task a'],
      ['d_b', 'done task b'],
      ['d_c', 'done task c'],
    ])
    expect(childrenOf(ctx, parent)).toHaveLength(3)
  })

  it('a child that fails gives the parent an error result, and the parent goes on', async () => {
    const model = modelOf((req) => {
      if (lastUser(req) === 'doomed') throw new Error('the model server is down')
      if (afterTools(req)) return [text('it failed, moving on')]
      return [call('d1', DELEGATE_TOOL, { task: 'doomed' })]
    })
    ctx = await startAgent({ provider: model })
    const parent = ctx.sessions.create()
    const outcome = await ctx.agent.runTurn(parent, request('try'))
    expect(outcome.endReason).toBe('completed')
    const [child] = childrenOf(ctx, parent)
    expect(child?.events().at(-1)?.data).toMatchObject({ reason: 'error' })
    const [result] = results(parent)
    expect(result?.data.isError).toBe(true)
    expect(result?.data.output).toMatch(
      new RegExp(`^Subagent ${child?.id} failed: .*the model server is down`),
    )
  })

  it('cancelling the parent cancels every running child: each child’s turn ends cancelled before the parent’s', async () => {
    let childrenStarted = 0
    const model = modelOf(async (req, signal) => {
      if (lastUser(req).startsWith('slow')) {
        childrenStarted++
        await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))))
      }
      return [call('d1', DELEGATE_TOOL, { task: 'slow 1' }), call('d2', DELEGATE_TOOL, { task: 'slow 2' })]
    })
    ctx = await startAgent({ provider: model })
    const parent = ctx.sessions.create()
    const req = request('go')
    const running = ctx.agent.runTurn(parent, req)
    while (childrenStarted < 2) await new Promise((resolve) => setTimeout(resolve, 5))
    req.controller.abort()
    const outcome = await running
    expect(outcome.endReason).toBe('cancelled')
    const children = childrenOf(ctx, parent)
    expect(children).toHaveLength(2)
    for (const child of children) {
      expect(child.events().at(-1)?.data).toMatchObject({ reason: 'cancelled' })
      expect(ctx.agent.isRunning(child.id)).toBe(false)
    }
    expect(results(parent).map((r) => r.data.isError)).toEqual([true, true])
    expect(String(results(parent)[0]?.data.output)).toMatch(/^Cancelled: subagent/)
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

  it('shows the child through the turn’s openSubagent: its own updates, then its outcome', async () => {
    const model = modelOf((req) => {
      if (lastUser(req) === 'sub') return [text('sub answer')]
      if (afterTools(req)) return [text('ok')]
      return [call('d1', DELEGATE_TOOL, { task: 'sub', title: 'Helper' })]
    })
    ctx = await startAgent({ provider: model })
    const parent = ctx.sessions.create()
    const seen: string[] = []
    const links: SubagentLink[] = []
    const req = {
      ...request('go'),
      openSubagent: (link: SubagentLink) => {
        links.push(link)
        return {
          sendUpdate: (update: { sessionUpdate: string }, seq: number) =>
            seen.push(`${update.sessionUpdate}@${seq}`),
          client: {},
          ended: (o: { endReason: string }) => seen.push(`ended ${o.endReason}`),
        }
      },
    }
    await ctx.agent.runTurn(parent, req)
    const [child] = childrenOf(ctx, parent)
    const callEvent = parent.events().find((e) => e.type === 'tool/call')
    const spawnedEvent = parent.events().find((e) => e.type === 'subagent:spawned')
    expect(spawnedEvent?.seq).toBe((callEvent?.seq ?? 0) + 1)
    expect(spawnedEvent?.data).toEqual({
      turn: 1,
      callId: 'd1',
      sessionId: child?.id,
      title: 'Helper',
      task: 'sub',
    })
    expect(links).toEqual([
      {
        sessionId: child?.id,
        parentSessionId: parent.id,
        callId: 'd1',
        seq: spawnedEvent?.seq,
        title: 'Helper',
        task: 'sub',
      },
    ])
    const last = child?.lastSeq ?? 0
    expect(seen).toEqual([
      `user_message_chunk@${last - 4}`,
      `agent_message_chunk@${last - 2}`,
      'ended completed',
    ])
  })
})

describe('delegate in a read-only session', () => {
  it('the child inherits read-only: it is offered no tool that changes anything, and a write it tries is refused', async () => {
    const model = modelOf((req) => {
      const user = lastUser(req)
      if (user === 'first') return [text('ok')]
      if (user === 'write a file') {
        if (afterTools(req)) return [text('could not write')]
        return [call('w1', 'write_text_file', { path: '/repo/out.txt', content: 'x' })]
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
    expect(offered).toContain('read_text_file')
    for (const changing of ['write_text_file', 'edit_text_file', 'run_command']) {
      expect(offered).not.toContain(changing)
    }
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
    const builtins = builtinTools().map((t) => t.spec.name)
    expect(seen.requests[0]?.tools.map((t) => t.name)).toEqual([...builtins, DELEGATE_TOOL])
    await ctx.stop()
    const without = modelOf(() => [text('hi')])
    ctx = await startAgent({ provider: without, subagents: false })
    await ctx.agent.runTurn(ctx.sessions.create(), request('x'))
    expect(without.requests[0]?.tools.map((t) => t.name)).toEqual(builtins)
  })

  it('refuses bounds that are not positive integers', async () => {
    const provider = modelOf(() => [])
    ctx = await startAgent({ provider })
    for (const subagents of [{ maxConcurrent: 0 }, { maxSteps: 1.5 }]) {
      expect(() => new AgentService(ctx as Context, { provider, subagents })).toThrow(RangeError)
    }
  })
})
