import type { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { replayBySeq, request, startAgent, updatesBySeq } from '../../../test/support/turn-harness.js'
import { type ModelMessage, projectUpdates, type SessionEvent } from '../../session/index.js'
import { Steering } from '../steering/steering.js'
import type { Tool } from '../tools/tool.js'
import type { ModelChunk, ModelProvider } from '../types.js'

let ctx: Context | undefined
afterEach(async () => {
  await ctx?.stop()
  ctx = undefined
})

const text = (t: string) => [{ type: 'text' as const, text: t }]
const shape = (events: readonly SessionEvent[]) => events.map((e) => e.type)

/** A latch a test opens once. */
function latch() {
  let open: () => void = () => {}
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { open, opened }
}

/** A tool that says it started, then waits for its gate. */
function gatedTool(started: () => void, gate: Promise<void>): Tool {
  return {
    spec: { name: 'gate', description: 'waits', inputSchema: { type: 'object' } },
    kind: 'execute',
    effect: 'read',
    title: () => 'Gate',
    run: async () => {
      started()
      await gate
      return { output: 'gate opened' }
    },
  }
}

/**
 * A model whose n-th request runs `steps[n]`: the chunks to yield, after an optional wait (told
 * through `streaming`). Every request's messages are kept.
 */
function scriptedModel(steps: { chunks: ModelChunk[]; wait?: Promise<void>; streaming?: () => void }[]) {
  const seen: (readonly ModelMessage[])[] = []
  const provider: ModelProvider = {
    name: 'scripted',
    async *stream(req) {
      const step = steps[seen.length] ?? { chunks: [{ type: 'text', text: 'spare' }] }
      seen.push(req.messages)
      step.streaming?.()
      if (step.wait) await step.wait
      yield* step.chunks
    },
  }
  return { provider, seen }
}

const toolStep = { chunks: [{ type: 'tool_call', callId: 'c1', name: 'gate', input: {} }] as ModelChunk[] }
const answer = (t: string) => ({ chunks: [{ type: 'text', text: t }] as ModelChunk[] })
const userTexts = (messages: readonly ModelMessage[]) =>
  messages.flatMap((m) => (m.role === 'user' ? m.content.map((b) => (b.type === 'text' ? b.text : '')) : []))

describe('steering', () => {
  it('a steer sent while a tool runs reaches the next request, after the tool result, once', async () => {
    const tool = latch()
    const gate = latch()
    const model = scriptedModel([toolStep, answer('steered answer'), answer('spare')])
    ctx = await startAgent({ provider: model.provider, tools: [gatedTool(tool.open, gate.opened)] })
    const session = ctx.sessions.create()
    const req = request('go')
    const running = ctx.agent.runTurn(session, req)
    await tool.opened
    expect(ctx.agent.features.get(Steering).steer(session.id, text('use the blue one'))).toBe(true)
    gate.open()
    const outcome = await running
    expect(outcome.stopReason).toBe('end_turn')
    expect(model.seen).toHaveLength(2)
    const second = model.seen[1] ?? []
    expect(second.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user'])
    expect(userTexts(second)).toEqual(['go', 'use the blue one'])
    expect(shape(session.events())).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'tool/call',
      'tool/result',
      'step/end',
      'user/message',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
    const steer = session.events()[6]
    expect(steer?.data).toEqual({ turn: 1, content: text('use the blue one'), steered: true })
    const shown = req.live.filter((u) => u.update.sessionUpdate === 'user_message')
    expect(shown).toEqual([
      {
        seq: 7,
        update: {
          sessionUpdate: 'user_message',
          messageId: 'msg_7',
          content: text('use the blue one'),
          _meta: { dsh: { steered: true } },
        },
      },
    ])
    // A replay (load) shows it where it entered, as it was sent live.
    const replayed = projectUpdates(session.id, session.events()).filter(
      (n) => n.update.sessionUpdate === 'user_message',
    )
    expect(replayed.map((n) => n.update)).toEqual([
      { sessionUpdate: 'user_message', messageId: 'msg_2', content: text('go') },
      shown[0]?.update,
    ])
    expect(updatesBySeq(req.live)).toEqual(replayBySeq(session))
    // A fork after it keeps it.
    const child = ctx.sessions.fork(session, outcome.seq)
    expect(child.events().filter((e) => e.type === 'user/message' && e.data.steered === true)).toHaveLength(1)
  })

  it('a steer during the last step is answered by one more step of the same turn', async () => {
    const streaming = latch()
    const release = latch()
    const model = scriptedModel([
      { chunks: [{ type: 'text', text: 'done' }], wait: release.opened, streaming: streaming.open },
      answer('and the steer'),
    ])
    ctx = await startAgent({ provider: model.provider })
    const session = ctx.sessions.create()
    const running = ctx.agent.runTurn(session, request('go'))
    await streaming.opened
    expect(ctx.agent.features.get(Steering).steer(session.id, text('one more thing'))).toBe(true)
    release.open()
    expect((await running).stopReason).toBe('end_turn')
    expect(userTexts(model.seen[1] ?? [])).toEqual(['go', 'one more thing'])
    expect(session.lastTurn).toBe(1)
  })

  it('a steer after the turn ended is refused and starts nothing', async () => {
    const model = scriptedModel([answer('done')])
    ctx = await startAgent({ provider: model.provider })
    const session = ctx.sessions.create()
    await ctx.agent.runTurn(session, request('go'))
    const before = session.lastSeq
    expect(ctx.agent.features.get(Steering).steer(session.id, text('late'))).toBe(false)
    expect(session.lastSeq).toBe(before)
    expect(ctx.agent.isRunning(session.id)).toBe(false)
    expect(model.seen).toHaveLength(1)
  })

  it('cancel drops the steers not yet delivered', async () => {
    const tool = latch()
    const model = scriptedModel([toolStep, answer('unreachable')])
    ctx = await startAgent({ provider: model.provider, tools: [gatedTool(tool.open, new Promise(() => {}))] })
    const session = ctx.sessions.create()
    const running = ctx.agent.runTurn(session, request('go'))
    await tool.opened
    expect(ctx.agent.features.get(Steering).steer(session.id, text('never delivered'))).toBe(true)
    await ctx.agent.cancel(session.id)
    expect((await running).stopReason).toBe('cancelled')
    expect(session.events().filter((e) => e.type === 'user/message')).toHaveLength(1)
    expect(model.seen).toHaveLength(1)
  })
})
