import type { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { replayBySeq, request, startAgent, updatesBySeq } from '../../../test/support/turn-harness.js'
import type { JsonValue, ModelMessage, SessionEvent } from '../../session/index.js'
import { AgentErrorCode, TurnInProgressError } from '../errors.js'
import { createEchoProvider } from '../providers/echo.js'
import { createScriptProvider } from '../providers/script.js'
import { parseModelScript } from '../providers/script-format.js'
import type { Tool } from '../tools/tool.js'
import type { ModelProvider } from '../types.js'
import { CANCELLED_TOOL_OUTPUT } from './turn-run.js'

let ctx: Context | undefined
afterEach(async () => {
  await ctx?.stop()
  ctx = undefined
})

const script = (turns: unknown) => createScriptProvider(parseModelScript(turns))
const shape = (events: readonly SessionEvent[]) => events.map((e) => e.type)
const isText = (u: { update: { sessionUpdate: string } }) => u.update.sessionUpdate === 'agent_message_chunk'

/** A tool that runs until its signal aborts, and says when it started. */
function hangingTool(started: () => void): Tool {
  return {
    spec: { name: 'hang', description: 'never finishes', inputSchema: { type: 'object' } },
    kind: 'execute',
    effect: 'read',
    title: () => 'Hang',
    run: (_input, { signal }) =>
      new Promise((_resolve, reject) => {
        started()
        signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true })
      }),
  }
}

describe('cancel', () => {
  it('mid-stream: records the partial answer, ends cancelled, and the log forks and goes on', async () => {
    const turns = [[[{ text: 'hel' }, { delayMs: 60_000 }, { text: 'lo' }]], [[{ text: 'second turn' }]]]
    ctx = await startAgent({ provider: script(turns) })
    const session = ctx.sessions.create()
    const req = request('hi')
    const running = ctx.agent.runTurn(session, req)
    await req.waitFor(isText)
    req.controller.abort()
    const outcome = await running
    expect(outcome).toEqual({ stopReason: 'cancelled', seq: session.lastSeq, endReason: 'cancelled' })
    expect(shape(session.events())).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
    expect(session.at(4)?.data).toMatchObject({ content: 'hel' })
    expect(session.at(outcome.seq)?.data).toEqual({ turn: 1, reason: 'cancelled' })
    expect(updatesBySeq(req.live)).toEqual(replayBySeq(session))
    const child = ctx.sessions.fork(session, outcome.seq)
    const next = await ctx.agent.runTurn(child, request('again'))
    expect(next.stopReason).toBe('end_turn')
    expect(child.events().at(-3)?.data).toMatchObject({ turn: 2, content: 'second turn' })
  })

  it('stops at once even when the provider ignores its signal', async () => {
    let streaming: () => void = () => {}
    const started = new Promise<void>((resolve) => {
      streaming = resolve
    })
    const provider: ModelProvider = {
      name: 'stuck',
      async *stream() {
        yield { type: 'text', text: 'thinking...' }
        streaming()
        await new Promise(() => {})
      },
    }
    ctx = await startAgent({ provider })
    const session = ctx.sessions.create()
    const req = request('hi')
    const running = ctx.agent.runTurn(session, req)
    await started
    req.controller.abort()
    const outcome = await running
    expect(outcome.stopReason).toBe('cancelled')
    expect(session.at(4)?.data).toMatchObject({ content: 'thinking...' })
  })

  it('mid-tool: every open call gets a cancelled error result and the turn ends cancelled', async () => {
    let toolStarted: () => void = () => {}
    const started = new Promise<void>((resolve) => {
      toolStarted = resolve
    })
    const steps = [
      [
        { toolCall: { name: 'hang', input: {} } },
        { toolCall: { name: 'lookup', input: {}, result: 'never seen' } },
      ],
      [{ text: 'unreachable' }],
    ]
    ctx = await startAgent({
      provider: script([steps, [[{ text: 'child answer' }]]]),
      tools: [hangingTool(toolStarted)],
    })
    const session = ctx.sessions.create()
    const req = request('run it')
    const running = ctx.agent.runTurn(session, req)
    await started
    req.controller.abort()
    const outcome = await running
    expect(outcome.stopReason).toBe('cancelled')
    const events = session.events()
    expect(shape(events).slice(2)).toEqual([
      'step/start',
      'tool/call',
      'tool/call',
      'tool/result',
      'tool/result',
      'step/end',
      'turn/end',
    ])
    for (const result of events.filter((e) => e.type === 'tool/result')) {
      expect(result.data).toMatchObject({ output: CANCELLED_TOOL_OUTPUT, isError: true })
    }
    expect(updatesBySeq(req.live)).toEqual(replayBySeq(session))

    const child = ctx.sessions.fork(session, outcome.seq)
    let seen: readonly ModelMessage[] = []
    const spy: ModelProvider = {
      name: 'spy',
      stream: (request, signal) => {
        seen = request.messages
        return createEchoProvider().stream(request, signal)
      },
    }
    await ctx.stop()
    ctx = await startAgent({ provider: spy })
    const reborn = ctx.sessions.create(undefined, { seed: child.events() })
    await ctx.agent.runTurn(reborn, request('after'))
    const tools = seen.filter((m) => m.role === 'tool')
    expect(tools.map((m) => [m.content, m.isError])).toEqual([
      [CANCELLED_TOOL_OUTPUT, true],
      [CANCELLED_TOOL_OUTPUT, true],
    ])
  })

  it('before the turn starts streaming: the turn is recorded and ends cancelled', async () => {
    ctx = await startAgent({ provider: createEchoProvider() })
    const session = ctx.sessions.create()
    const req = request('hi')
    req.controller.abort()
    const outcome = await ctx.agent.runTurn(session, req)
    expect(outcome.stopReason).toBe('cancelled')
    expect(shape(session.events())).toEqual(['turn/start', 'user/message', 'turn/end'])
  })

  it('ctx.agent.cancel stops the running turn and resolves once it ended', async () => {
    ctx = await startAgent({ provider: script([[[{ delayMs: 60_000 }]]]) })
    const session = ctx.sessions.create()
    const running = ctx.agent.runTurn(session, request('hi'))
    expect(ctx.agent.isRunning(session.id)).toBe(true)
    await ctx.agent.cancel(session.id)
    expect(ctx.agent.isRunning(session.id)).toBe(false)
    expect(session.events().at(-1)?.data).toMatchObject({ reason: 'cancelled' })
    expect((await running).stopReason).toBe('cancelled')
  })
})

describe('one turn at a time', () => {
  it('rejects a second prompt while a turn runs, without touching the log', async () => {
    ctx = await startAgent({ provider: script([[[{ delayMs: 60_000 }]]]) })
    const session = ctx.sessions.create()
    const first = request('one')
    const running = ctx.agent.runTurn(session, first)
    const length = session.length
    const second = ctx.agent.runTurn(session, request('two'))
    await expect(second).rejects.toBeInstanceOf(TurnInProgressError)
    await expect(second).rejects.toMatchObject({
      code: AgentErrorCode.TURN_IN_PROGRESS,
      sessionId: session.id,
    })
    expect(session.length).toBe(length)
    first.controller.abort()
    await running
    const third = await ctx.agent.runTurn(session, request('three'))
    expect(third.stopReason).not.toBe('cancelled')
  })
})

describe('durability', () => {
  it('resolves a turn only after session/flush settled', async () => {
    let release: () => void = () => {}
    let flushing: () => void = () => {}
    const flushStarted = new Promise<void>((resolve) => {
      flushing = resolve
    })
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    ctx = await startAgent({ provider: createEchoProvider() }, (c) => {
      c.on('session/flush', async () => {
        flushing()
        await gate
      })
    })
    const session = ctx.sessions.create()
    let settled = false
    const running = ctx.agent.runTurn(session, request('hi')).then((outcome) => {
      settled = true
      return outcome
    })
    await flushStarted
    expect(session.events().at(-1)?.type).toBe('turn/end')
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
    expect(settled).toBe(false)
    release()
    expect((await running).seq).toBe(session.lastSeq)
  })

  it('rejects when the flush fails', async () => {
    ctx = await startAgent({ provider: createEchoProvider() }, (c) => {
      c.on('session/flush', async () => {
        throw new Error('disk full')
      })
    })
    const session = ctx.sessions.create()
    await expect(ctx.agent.runTurn(session, request('hi'))).rejects.toThrow('disk full')
    expect(ctx.agent.isRunning(session.id)).toBe(false)
  })
})

describe('echo and fork', () => {
  it('a forked child remembers only its prefix', async () => {
    ctx = await startAgent({ provider: createEchoProvider() })
    const parent = ctx.sessions.create()
    const first = await ctx.agent.runTurn(parent, request('hello'))
    await ctx.agent.runTurn(parent, request('secret'))
    const child = ctx.sessions.fork(parent, first.seq)
    await ctx.agent.runTurn(child, request('what did I say?'))
    const answer = (events: readonly SessionEvent[]) =>
      events.filter((e) => e.type === 'assistant/message').at(-1)?.data as { content: JsonValue }
    expect(answer(child.events()).content).toBe(
      'I remember 2 messages from you in this session:\n1. "hello"\n2. "what did I say?"',
    )
    await ctx.agent.runTurn(parent, request('and now?'))
    expect(answer(parent.events()).content).toContain('I remember 3 messages')
    expect(answer(parent.events()).content).toContain('"secret"')
  })
})
