import type { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import {
  type LiveUpdate,
  replayBySeq,
  request,
  startAgent,
  updatesBySeq,
} from '../../../test/support/turn-harness.js'
import type { SessionEvent } from '../../session/index.js'
import { createEchoProvider, echoAnswer } from '../providers/echo.js'
import { createScriptProvider } from '../providers/script.js'
import { parseModelScript } from '../providers/script-format.js'

let ctx: Context | undefined
afterEach(async () => {
  await ctx?.stop()
  ctx = undefined
})

const script = (turns: unknown) => createScriptProvider(parseModelScript(turns))
const shape = (events: readonly SessionEvent[]) => events.map((e) => e.type)

describe('a plain turn (echo)', () => {
  it('appends the turn in order, streams the answer live and resolves with the turn/end seq', async () => {
    ctx = await startAgent({ provider: createEchoProvider() })
    const session = ctx.sessions.create()
    const req = request('hello')
    const outcome = await ctx.agent.runTurn(session, req)
    const events = session.events()
    expect(shape(events)).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
    expect(events[0]?.data).toEqual({ turn: 1 })
    expect(events[1]?.data).toEqual({ turn: 1, content: [{ type: 'text', text: 'hello' }] })
    expect(events[3]?.data).toMatchObject({ turn: 1, step: 1, content: echoAnswer(['hello']) })
    expect(events[3]?.data).toHaveProperty('thought')
    expect(events[5]?.data).toEqual({ turn: 1, reason: 'completed' })
    expect(outcome).toEqual({ stopReason: 'end_turn', seq: 6, endReason: 'completed' })
    const kinds = req.live.map((u) => u.update.sessionUpdate)
    expect(kinds).not.toContain('user_message_chunk')
    expect(kinds.filter((k) => k === 'agent_message_chunk').length).toBeGreaterThan(1)
    expect(req.live[0]).toMatchObject({
      seq: 2,
      update: { sessionUpdate: 'session_info_update', title: 'hello' },
    })
    expect(req.live.slice(1).every((u) => u.seq === 4)).toBe(true)
    expect(updatesBySeq(req.live)).toEqual(replayBySeq(session))
  })

  it('numbers turns on from the last one and remembers every earlier prompt', async () => {
    ctx = await startAgent({ provider: createEchoProvider() })
    const session = ctx.sessions.create()
    const live: LiveUpdate[] = []
    for (const text of ['hello', 'what did I say?']) {
      const req = request(text)
      await ctx.agent.runTurn(session, req)
      live.push(...req.live)
    }
    const last = session
      .events()
      .filter((e) => e.type === 'assistant/message')
      .at(-1)
    expect(last?.data).toMatchObject({
      turn: 2,
      content: 'I remember 2 messages from you in this session:\n1. "hello"\n2. "what did I say?"',
    })
    expect(updatesBySeq(live)).toEqual(replayBySeq(session))
  })
})

describe('a tool-using turn (script)', () => {
  const turns = [
    [
      [
        { thought: 'look first' },
        { text: 'Reading.' },
        { toolCall: { name: 'lookup', input: { q: 'x' }, result: 'found x' } },
        { toolCall: { name: 'lookup', input: { q: 'y' }, result: 'no y', isError: true } },
      ],
      [{ text: 'Done: ' }, { text: 'x only.' }],
    ],
  ]

  it('loops model, tools, model and records calls, results and steps', async () => {
    ctx = await startAgent({ provider: script(turns) })
    const session = ctx.sessions.create()
    const req = request('go')
    const outcome = await ctx.agent.runTurn(session, req)
    expect(outcome.stopReason).toBe('end_turn')
    const events = session.events()
    expect(shape(events)).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'tool/call',
      'tool/call',
      'tool/result',
      'tool/result',
      'step/end',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
    expect(events[3]?.data).toEqual({ turn: 1, step: 1, content: 'Reading.', thought: 'look first' })
    expect(events[4]?.data).toMatchObject({ callId: 'call_1_1_1', name: 'lookup', input: { q: 'x' } })
    expect(events[6]?.data).toEqual({ turn: 1, step: 1, callId: 'call_1_1_1', output: 'found x' })
    expect(events[7]?.data).toEqual({ turn: 1, step: 1, callId: 'call_1_1_2', output: 'no y', isError: true })
    expect(events[10]?.data).toMatchObject({ step: 2, content: 'Done: x only.' })
    const toolUpdates = req.live.filter((u) => u.update.sessionUpdate.startsWith('tool_call'))
    expect(toolUpdates.map((u) => [u.update.sessionUpdate, u.seq])).toEqual([
      ['tool_call', 5],
      ['tool_call', 6],
      ['tool_call_update', 7],
      ['tool_call_update', 8],
    ])
    expect(toolUpdates[3]?.update).toMatchObject({ status: 'failed' })
    expect(updatesBySeq(req.live)).toEqual(replayBySeq(session))
  })

  it('ends with max_turn_requests when the model keeps calling tools past maxSteps', async () => {
    const step = [{ toolCall: { name: 'lookup', input: {}, result: 'again' } }]
    ctx = await startAgent({ provider: script([[step, step, step, step]]), maxSteps: 2 })
    const session = ctx.sessions.create()
    const outcome = await ctx.agent.runTurn(session, request('loop'))
    expect(outcome).toMatchObject({ stopReason: 'max_turn_requests', endReason: 'max-turn-requests' })
    expect(session.events().filter((e) => e.type === 'step/start')).toHaveLength(2)
    expect(session.at(outcome.seq)?.data).toEqual({ turn: 1, reason: 'max-turn-requests' })
    expect(session.unansweredCalls).toEqual([])
  })

  it.each([
    ['max_tokens', 'max_tokens', 'max-tokens'],
    ['refusal', 'refusal', 'refusal'],
  ])('maps a model stop %s to stopReason %s', async (stop, stopReason, endReason) => {
    ctx = await startAgent({
      provider: script([[[{ text: 'cut' }, { toolCall: { name: 'lookup', input: {} } }, { stop }]]]),
    })
    const session = ctx.sessions.create()
    const outcome = await ctx.agent.runTurn(session, request('x'))
    expect(outcome).toMatchObject({ stopReason, endReason })
    const result = session.events().find((e) => e.type === 'tool/result')
    expect(result?.data).toMatchObject({ isError: true })
    expect(String(result?.data.output)).toContain('Not run')
  })

  it('reports usage live as usage_update and records it on the assistant message', async () => {
    const usage = { inputTokens: 100, outputTokens: 20 }
    ctx = await startAgent({ provider: script([[[{ text: 'hi' }, { usage, contextWindow: 8000 }]]]) })
    const session = ctx.sessions.create()
    const req = request('x')
    await ctx.agent.runTurn(session, req)
    const message = session.events().find((e) => e.type === 'assistant/message')
    expect(message?.data).toMatchObject({ usage })
    expect(req.live).toContainEqual({
      update: { sessionUpdate: 'usage_update', used: 120, size: 8000 },
      seq: message?.seq,
    })
  })

  it('turns unknown tools and throwing tools into error results and goes on', async () => {
    const boom = {
      spec: { name: 'boom', description: 'fails', inputSchema: { type: 'object' } },
      kind: 'other' as const,
      effect: 'read' as const,
      title: () => 'Boom',
      run: async () => {
        throw new Error('tool exploded')
      },
    }
    const steps = [
      [{ toolCall: { name: 'nope', input: {} } }, { toolCall: { name: 'boom', input: {} } }],
      [{ text: 'carried on' }],
    ]
    ctx = await startAgent({ provider: script([steps]), tools: [boom] })
    const session = ctx.sessions.create()
    const outcome = await ctx.agent.runTurn(session, request('x'))
    expect(outcome.stopReason).toBe('end_turn')
    const results = session.events().filter((e) => e.type === 'tool/result')
    expect(results.map((e) => e.data)).toEqual([
      expect.objectContaining({ isError: true, output: 'Unknown tool "nope".' }),
      expect.objectContaining({ isError: true, output: 'boom failed: tool exploded' }),
    ])
    const call = session.events().find((e) => e.type === 'tool/call' && e.data.name === 'boom')
    expect(call?.data).toMatchObject({ title: 'Boom', kind: 'other' })
    expect(session.events().at(-2)?.type).toBe('step/end')
  })
})

describe('provider failure', () => {
  it('records what was streamed, answers streamed calls with errors and ends the turn with error', async () => {
    ctx = await startAgent({
      provider: script([
        [[{ text: 'partial ' }, { toolCall: { name: 'lookup', input: {} } }, { error: 'upstream 503' }]],
      ]),
    })
    const session = ctx.sessions.create()
    const req = request('x')
    const outcome = await ctx.agent.runTurn(session, req)
    expect(outcome.stopReason).toBe('end_turn')
    expect(outcome.endReason).toBe('error')
    expect(outcome.error).toContain('upstream 503')
    const events = session.events()
    expect(shape(events).slice(2)).toEqual([
      'step/start',
      'assistant/message',
      'tool/call',
      'tool/result',
      'step/end',
      'turn/end',
    ])
    expect(events.at(-1)?.data).toMatchObject({ reason: 'error', message: outcome.error })
    expect(events[3]?.data).toMatchObject({ content: 'partial ' })
    expect(updatesBySeq(req.live)).toEqual(replayBySeq(session))
    expect(() => ctx?.sessions.fork(session, outcome.seq)).not.toThrow()
  })

  it('fails the turn with an error outcome when the provider throws before streaming', async () => {
    const provider = {
      name: 'broken',
      stream: (): AsyncIterable<never> => {
        throw new Error('no connection')
      },
    }
    ctx = await startAgent({ provider })
    const session = ctx.sessions.create()
    const outcome = await ctx.agent.runTurn(session, request('x'))
    // The provider's own message, once: session/prompt prefixes it with "the model failed: ".
    expect(outcome).toMatchObject({ endReason: 'error', error: 'no connection' })
    expect(shape(session.events())).not.toContain('assistant/message')
  })
})
