import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { builtinTools } from '../../src/agent/builtin-tools.js'
import { UPDATE_PLAN_TOOL } from '../../src/agent/plan/update-plan-tool.js'
import { DELEGATE_TOOL } from '../../src/agent/subagents/index.js'
import { chunk, completionStream, type FakeReply } from '../support/fake-openai.js'
import { API_KEY, expectCleanExit, MODEL_NAME, openAiAgents } from '../support/openai-agent.js'
import { chunkTexts, messagesOf, toolNamesOf, updatesOfKind } from '../support/openai-wire.js'
import { foldUpdates, fromLog } from './updates.js'

/** The built-in tools offered to an editor that shows no forms (so not `ask_user`). */
const offeredBuiltins = () => builtinTools().filter((tool) => tool.offeredTo?.({}) ?? true)

/**
 * `--model openai` end to end: the official ACP client drives the built binary over stdio, and the
 * binary streams from a scripted chat-completions server on 127.0.0.1. Text, reasoning, usage,
 * retries and failures, as the client sees them live, as `session/load` replays them, and as the
 * server was asked.
 */

const start = openAiAgents()

const answer = (text: string | string[]): FakeReply => ({ stream: completionStream({ text }) })

describe('openai provider end to end: streaming', () => {
  it('streams text as several agent_message_chunk updates tagged with the seq that records them', async () => {
    const run = await start({ script: [answer(['The ', 'answer ', 'is ', '42.'])] })
    const sessionId = await run.newSession()
    const result = await run.prompt(sessionId, 'What is the answer?')
    expect(result.stopReason).toBe('end_turn')

    const live = run.updatesOf(sessionId)
    expect(chunkTexts(live, 'agent_message_chunk')).toEqual(['The ', 'answer ', 'is ', '42.'])
    const events = run.loggedEvents(sessionId)
    const message = events.find((e) => e.type === 'assistant/message')
    expect(message?.data.content).toBe('The answer is 42.')
    for (const { seq } of updatesOfKind(live, 'agent_message_chunk')) expect(seq).toBe(message?.seq)
    const end = events.at(-1)
    expect(end).toMatchObject({ type: 'turn/end', data: { reason: 'completed' } })
    expect(result._meta).toEqual({ dsh: { seq: end?.seq } })

    const [request] = run.fake.requests
    expect(request).toMatchObject({ method: 'POST', path: '/v1/chat/completions' })
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`)
    expect(request?.body).toMatchObject({ model: MODEL_NAME, stream: true })
    expect(messagesOf(request)).toEqual([{ role: 'user', content: 'What is the answer?' }])
    expect(toolNamesOf(request)).toEqual(
      [...offeredBuiltins().map((tool) => tool.spec.name), UPDATE_PLAN_TOOL, DELEGATE_TOOL].sort(),
    )

    const replayed = (await run.replay(sessionId)).filter(fromLog)
    expect(foldUpdates(replayed, true)).toEqual(foldUpdates(live.filter(fromLog), true))
    await expectCleanExit(run)
  })

  it('streams reasoning as agent_thought_chunk, records it, and sends none back from a turn without tools', async () => {
    const run = await start({
      script: [
        { stream: completionStream({ reasoning: ['Let me ', 'think.'], text: ['Four', '.'] }) },
        answer('Five.'),
      ],
    })
    const sessionId = await run.newSession()
    await run.prompt(sessionId, '2+2?')
    const live = run.updatesOf(sessionId)
    expect(chunkTexts(live, 'agent_thought_chunk')).toEqual(['Let me ', 'think.'])
    expect(chunkTexts(live, 'agent_message_chunk')).toEqual(['Four', '.'])
    expect(live.findIndex((u) => u.update.sessionUpdate === 'agent_thought_chunk')).toBeLessThan(
      live.findIndex((u) => u.update.sessionUpdate === 'agent_message_chunk'),
    )
    expect(run.loggedEvents(sessionId).find((e) => e.type === 'assistant/message')?.data).toMatchObject({
      content: 'Four.',
      thought: 'Let me think.',
    })
    const replay = await run.replay(sessionId)
    expect(chunkTexts(replay, 'agent_thought_chunk')).toEqual(['Let me think.'])

    await run.prompt(sessionId, 'and 2+3?')
    expect(messagesOf(run.fake.requests[1])).toEqual([
      { role: 'user', content: '2+2?' },
      { role: 'assistant', content: 'Four.' },
      { role: 'user', content: 'and 2+3?' },
    ])
    await expectCleanExit(run)
  })

  it('in a turn that called a tool, the reasoning goes back as reasoning_content (DeepSeek thinking mode)', async () => {
    const run = await start({
      script: [
        {
          stream: completionStream({
            reasoning: 'I need the file.',
            toolCalls: [{ id: 'call_1', name: 'read_text_file', arguments: '{"path":"a.txt"}' }],
          }),
        },
        { stream: completionStream({ reasoning: 'It is short.', text: 'It says hi.' }) },
        { stream: completionStream({ reasoning: 'Polite.', text: 'Bye.' }) },
        answer('Again.'),
      ],
    })
    writeFileSync(join(run.cwd, 'a.txt'), 'hi\n')
    const sessionId = await run.newSession()
    await run.prompt(sessionId, 'what is in a.txt?')
    const toolTurn = [
      { role: 'user', content: 'what is in a.txt?' },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'I need the file.',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'read_text_file', arguments: '{"path":"a.txt"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'hi\n' },
    ]
    expect(messagesOf(run.fake.requests[1])).toEqual(toolTurn)
    await run.prompt(sessionId, 'thanks')
    await run.prompt(sessionId, 'again')
    expect(messagesOf(run.fake.requests[3])).toEqual([
      ...toolTurn,
      { role: 'assistant', content: 'It says hi.', reasoning_content: 'It is short.' },
      { role: 'user', content: 'thanks' },
      { role: 'assistant', content: 'Bye.' },
      { role: 'user', content: 'again' },
    ])
    await expectCleanExit(run)
  })

  it('records token usage in the log; without a known context window no usage_update is sent', async () => {
    // Without --context-window the size that usage_update needs is unknown.
    const run = await start({
      script: [{ stream: completionStream({ text: 'ok', usage: { prompt: 1200, completion: 34 } }) }],
    })
    const sessionId = await run.newSession()
    await run.prompt(sessionId, 'count my tokens')
    expect(run.fake.requests[0]?.body?.stream_options).toEqual({ include_usage: true })
    expect(run.loggedEvents(sessionId).find((e) => e.type === 'assistant/message')?.data).toMatchObject({
      content: 'ok',
      usage: { inputTokens: 1200, outputTokens: 34 },
    })
    expect(updatesOfKind(run.updatesOf(sessionId), 'usage_update')).toEqual([])
    await expectCleanExit(run)
  })

  it('with --context-window, token usage streams as usage_update { used, size }', async () => {
    const run = await start({
      script: [{ stream: completionStream({ text: 'ok', usage: { prompt: 1200, completion: 34 } }) }],
      args: ['--context-window', '65536'],
    })
    const sessionId = await run.newSession()
    await run.prompt(sessionId, 'count my tokens')
    expect(updatesOfKind(run.updatesOf(sessionId), 'usage_update')).toMatchObject([
      { update: { sessionUpdate: 'usage_update', used: 1234, size: 65536 } },
    ])
    await expectCleanExit(run)
  })
})

describe('openai provider end to end: failures', () => {
  it('a 429 then success: the client sees only the answer; the same body was sent twice', async () => {
    const run = await start({
      script: [
        { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'slow down' } } },
        answer(['after ', 'a retry']),
      ],
    })
    const sessionId = await run.newSession()
    const result = await run.prompt(sessionId, 'hello')
    expect(result.stopReason).toBe('end_turn')
    expect(chunkTexts(run.updatesOf(sessionId), 'agent_message_chunk')).toEqual(['after ', 'a retry'])
    expect(run.fake.requests).toHaveLength(2)
    expect(run.fake.requests[1]?.rawBody).toBe(run.fake.requests[0]?.rawBody)
    const types = run.loggedEvents(sessionId).map((e) => e.type)
    expect(types).toEqual([
      'instructions:set',
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
    await expectCleanExit(run)
  }, 15_000)

  it('a server that keeps answering 500: 1 + 3 retries, the prompt fails saying why, the session goes on', async () => {
    // No Retry-After, so the default backoff runs (500 ms base, doubling, jittered): 1.75-3.5 s.
    const failing: FakeReply = { status: 500, body: { error: { message: 'the GPU caught fire' } } }
    const run = await start({ script: [failing, failing, failing, failing, answer('back again')] })
    const sessionId = await run.newSession()
    const error = await run.prompt(sessionId, 'are you there?').then(
      () => undefined,
      (reason: unknown) => reason,
    )
    expect(error).toMatchObject({ code: -32020 })
    const message = (error as { message: string }).message
    expect(message).toContain('HTTP 500')
    expect(message).toContain('the GPU caught fire')
    expect(message).toContain('/v1/chat/completions')
    expect(message).toContain('4 attempts')
    expect(run.fake.requests).toHaveLength(4)
    const end = run.loggedEvents(sessionId).at(-1)
    expect(end).toMatchObject({ type: 'turn/end', data: { reason: 'error' } })
    expect(String(end?.data.message)).toContain('HTTP 500')
    expect((error as { data?: unknown }).data).toMatchObject({ sessionId, seq: end?.seq })

    const next = await run.prompt(sessionId, 'and now?')
    expect(next.stopReason).toBe('end_turn')
    expect(messagesOf(run.fake.requests[4])).toEqual([
      { role: 'user', content: 'are you there?' },
      { role: 'user', content: 'and now?' },
    ])
    await expectCleanExit(run)
  }, 20_000)

  it('a server that dies mid-stream: no retry, the partial text is recorded, the turn ends error', async () => {
    const run = await start({
      script: [
        {
          stream: [
            chunk({ role: 'assistant', content: '' }),
            chunk({ content: 'half an ans' }),
            { destroy: true },
          ],
        },
        answer('whole answer'),
      ],
    })
    const sessionId = await run.newSession()
    await expect(run.prompt(sessionId, 'tell me')).rejects.toMatchObject({
      code: -32020,
      message: expect.stringContaining('broke off the answer before the model finished'),
    })
    expect(run.fake.requests).toHaveLength(1)
    const events = run.loggedEvents(sessionId)
    expect(events.find((e) => e.type === 'assistant/message')?.data.content).toBe('half an ans')
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'error' } })
    expect(chunkTexts(await run.replay(sessionId), 'agent_message_chunk')).toEqual(['half an ans'])

    expect((await run.prompt(sessionId, 'again')).stopReason).toBe('end_turn')
    expect(messagesOf(run.fake.requests[1])).toEqual([
      { role: 'user', content: 'tell me' },
      { role: 'assistant', content: 'half an ans' },
      { role: 'user', content: 'again' },
    ])
    await expectCleanExit(run)
  })
})
