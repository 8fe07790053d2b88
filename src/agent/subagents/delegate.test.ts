import type { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import {
  afterTools,
  call,
  childrenOf,
  lastUser,
  modelOf,
  results,
  shape,
  text,
} from '../../../test/support/delegate-model.js'
import { request, startAgent } from '../../../test/support/turn-harness.js'
import type { CoreEvent } from '../../session/index.js'
import type { SubagentLink } from '../types.js'
import { DELEGATE_TOOL } from './delegate-tool.js'

let ctx: Context | undefined
afterEach(async () => {
  await ctx?.stop()
  ctx = undefined
})

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

  it('shows the child through its client’s subagent channel, and says on the parent that it started and ended', async () => {
    const model = modelOf((req) => {
      if (lastUser(req) === 'sub') return [text('sub answer')]
      if (afterTools(req)) return [text('ok')]
      return [call('d1', DELEGATE_TOOL, { task: 'sub', title: 'Helper' })]
    })
    ctx = await startAgent({ provider: model })
    const parent = ctx.sessions.create()
    const seen: string[] = []
    const links: SubagentLink[] = []
    const req = request('go', {
      subagent: (link: SubagentLink) => {
        links.push(link)
        return {
          sendUpdate: (update: { sessionUpdate: string }, seq: number) =>
            seen.push(`${update.sessionUpdate}@${seq}`),
          client: {},
        }
      },
    })
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
    expect(seen).toEqual([`user_message@${last - 4}`, `agent_message_chunk@${last - 2}`])
    const onParent = req.live
      .filter((u) => u.seq === spawnedEvent?.seq)
      .map((u) => (u.update.sessionUpdate === 'subagent_update' ? u.update.state : u.update.sessionUpdate))
    expect(onParent).toEqual([
      { state: 'running' },
      'tool_call_update',
      { state: 'idle', stopReason: 'end_turn' },
    ])
  })
})
