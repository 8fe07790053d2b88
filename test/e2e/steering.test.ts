import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { steeringWireErrors } from '../../src/acp/steering/wire-schema.js'
import { chunk, completionStream } from '../support/fake-openai.js'
import { openAiAgents } from '../support/openai-agent.js'
import { deferred, messagesOf, until, updatesOfKind } from '../support/openai-wire.js'

/**
 * Steering (`_session/steering`) and queued prompts over real stdio, against the fake
 * chat-completions server: what reaches the model, what the log keeps, what clients are shown.
 */

const start = openAiAgents()
const text = (t: string): acp.ContentBlock => ({ type: 'text', text: t })
const steeredChunks = (updates: readonly acp.SessionNotification[]) =>
  updatesOfKind(updates, 'user_message_chunk').filter(
    (u) => (u.update._meta as { dsh?: { steered?: boolean } } | undefined)?.dsh?.steered === true,
  )

describe('steering over stdio', () => {
  it('a steer sent while a tool waits reaches the next model request after the tool result, once; load and a fork show it', async () => {
    const asked = deferred()
    const answer = deferred<acp.RequestPermissionResponse>()
    const run = await start({
      script: [
        {
          stream: completionStream({
            toolCalls: [
              { id: 'call_1', name: 'write_text_file', arguments: '{"path":"a.txt","content":"x"}' },
            ],
          }),
        },
        { stream: completionStream({ text: 'wrote it, in blue' }) },
        { stream: completionStream({ text: 'fork answer' }) },
      ],
      setupClient: (app) => {
        app.onRequest('session/request_permission', () => {
          asked.resolve()
          return answer.promise
        })
      },
    })
    const initialized = run.agent.audit
      .outgoing()
      .find((m) => typeof m.result === 'object' && m.result !== null && 'agentCapabilities' in m.result)
    const initMeta = (initialized?.result as { _meta?: unknown } | undefined)?._meta
    expect(steeringWireErrors('initializeMeta', initMeta)).toEqual([])
    const sessionId = await run.newSession()
    const prompt = run.prompt(sessionId, 'write a.txt')
    await asked.promise
    const steered = await run.agent.agent.request('_session/steering', {
      sessionId,
      prompt: [text('make it blue')],
    })
    expect(steered).toEqual({ outcome: 'injected' })
    answer.resolve({ outcome: { outcome: 'selected', optionId: 'allow_once' } })
    const done = await prompt
    expect(done.stopReason).toBe('end_turn')
    expect(run.fake.requests).toHaveLength(2)
    const second = messagesOf(run.fake.requests[1]) as { role: string; content: unknown }[]
    expect(second.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user'])
    expect(JSON.stringify(second[3]?.content)).toContain('make it blue')
    expect(JSON.stringify(second).split('make it blue')).toHaveLength(2)

    const live = steeredChunks(run.updatesOf(sessionId))
    expect(live).toHaveLength(1)
    const events = run.loggedEvents(sessionId)
    const steer = events.find((e) => e.type === 'user/message' && e.data.steered === true)
    expect(steer?.data).toEqual({ turn: 1, content: [text('make it blue')], steered: true })
    expect(live[0]?.update).toMatchObject({ messageId: `msg_${steer?.seq}` })
    expect(events.slice(events.indexOf(steer as never) - 2).map((e) => e.type)).toEqual([
      'tool/result',
      'step/end',
      'user/message',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ])

    await run.restart()
    const replayed = steeredChunks(await run.replay(sessionId))
    expect(replayed.map((u) => u.update)).toEqual(live.map((u) => u.update))

    const fork = await run.agent.agent.request('session/fork', { sessionId, cwd: run.cwd, mcpServers: [] })
    const forkShown = steeredChunks(await run.replay(fork.sessionId))
    expect(forkShown).toHaveLength(1)
    expect(await run.agent.stop()).toBe(0)
    expect(run.agent.audit.problems).toEqual([])
  })

  it('idle: promptRequired starts nothing; without it the steer runs as a turn', async () => {
    const run = await start({ script: [{ stream: completionStream({ text: 'started by a steer' }) }] })
    const sessionId = await run.newSession()
    expect(
      await run.agent.agent.request('_session/steering', {
        sessionId,
        prompt: [text('hello')],
        idleBehavior: 'promptRequired',
      }),
    ).toEqual({ outcome: 'promptRequired', reason: 'noRunningTurn' })
    expect(run.fake.requests).toHaveLength(0)
    expect(
      await run.agent.agent.request('_session/steering', { sessionId, prompt: [text('hello')] }),
    ).toEqual({
      outcome: 'started',
    })
    await until(() => run.loggedEvents(sessionId).some((e) => e.type === 'turn/end'))
    expect(run.fake.requests).toHaveLength(1)
    await expect(
      run.agent.agent.request('_session/steering', { sessionId, prompt: [], idleBehavior: 'sometimes' }),
    ).rejects.toMatchObject({ code: -32602 })
    expect(await run.agent.stop()).toBe(0)
    expect(run.agent.audit.problems).toEqual([])
  })

  it("_session/inject (acp-factory's Session.inject): a probe does nothing, an idle session holds it for the next prompt, a running turn takes it", async () => {
    const asked = deferred()
    const answer = deferred<acp.RequestPermissionResponse>()
    const run = await start({
      script: [
        { stream: completionStream({ text: 'first answer' }) },
        {
          stream: completionStream({
            toolCalls: [
              { id: 'call_1', name: 'write_text_file', arguments: '{"path":"a.txt","content":"x"}' },
            ],
          }),
        },
        { stream: completionStream({ text: 'done' }) },
      ],
      setupClient: (app) => {
        app.onRequest('session/request_permission', () => {
          asked.resolve()
          return answer.promise
        })
      },
    })
    const sessionId = await run.newSession()
    const inject = (message: acp.ContentBlock[]) =>
      run.agent.agent.request('_session/inject', { sessionId, message })
    expect(await inject([])).toEqual({ success: true, outcome: 'probe' })
    expect(await inject([text('use tabs')])).toEqual({ success: true, outcome: 'held' })
    // A slash command is no prompt to the model: the held message waits for the next one.
    await run.prompt(sessionId, '/help')
    expect(run.fake.requests).toHaveLength(0)
    await run.prompt(sessionId, 'hello')
    const first = messagesOf(run.fake.requests[0]) as { role: string; content: unknown }[]
    expect(first.map((m) => m.role)).toEqual(['user'])
    expect(JSON.stringify(first[0]?.content).indexOf('use tabs')).toBeLessThan(
      JSON.stringify(first[0]?.content).indexOf('hello'),
    )
    const userMessages = run.loggedEvents(sessionId).filter((e) => e.type === 'user/message')
    expect(userMessages.map((e) => e.data.content)).toEqual([
      [text('/help')],
      [text('use tabs'), text('hello')],
    ])

    const prompt = run.prompt(sessionId, 'write a.txt')
    await asked.promise
    expect(await inject([text('in blue')])).toEqual({ success: true, outcome: 'injected' })
    answer.resolve({ outcome: { outcome: 'selected', optionId: 'allow_once' } })
    expect((await prompt).stopReason).toBe('end_turn')
    const third = messagesOf(run.fake.requests[2]) as { role: string; content: unknown }[]
    expect(JSON.stringify(third.at(-1)?.content)).toContain('in blue')

    await expect(
      run.agent.agent.request('_session/inject', { sessionId, message: 'not a list' }),
    ).rejects.toMatchObject({ code: -32602 })
    await expect(
      run.agent.agent.request('_session/inject', { sessionId: 'ses_nope', message: [text('x')] }),
    ).rejects.toMatchObject({ code: -32002 })
    expect(await run.agent.stop()).toBe(0)
    expect(run.agent.audit.problems).toEqual([])
  })

  it('cancel drops a steer not yet delivered', async () => {
    const asked = deferred()
    const run = await start({
      script: [
        {
          stream: completionStream({
            toolCalls: [
              { id: 'call_1', name: 'write_text_file', arguments: '{"path":"a.txt","content":"x"}' },
            ],
          }),
        },
        { stream: completionStream({ text: 'next turn' }) },
      ],
      setupClient: (app) => {
        app.onRequest('session/request_permission', () => {
          asked.resolve()
          return new Promise(() => {})
        })
      },
    })
    const sessionId = await run.newSession()
    const prompt = run.prompt(sessionId, 'write a.txt')
    await asked.promise
    await run.agent.agent.request('_session/steering', { sessionId, prompt: [text('dropped')] })
    await run.agent.agent.notify('session/cancel', { sessionId })
    expect((await prompt).stopReason).toBe('cancelled')
    expect(run.loggedEvents(sessionId).filter((e) => e.type === 'user/message')).toHaveLength(1)
    await run.prompt(sessionId, 'again')
    expect(JSON.stringify(messagesOf(run.fake.requests[1]))).not.toContain('dropped')
  })
})

describe('queued prompts over stdio', () => {
  it('three prompts sent at once run as three turns in order; one taken back never runs', async () => {
    const release = deferred()
    const run = await start({
      script: [
        {
          stream: [
            chunk({ content: 'first ' }),
            { until: release.promise },
            ...completionStream({ text: 'done' }),
          ],
        },
        { stream: completionStream({ text: 'second' }) },
        { stream: completionStream({ text: 'fourth' }) },
      ],
    })
    const sessionId = await run.newSession()
    const first = run.prompt(sessionId, 'one')
    await until(() => run.fake.requests.length === 1)
    const second = run.prompt(sessionId, 'two')
    const third = run.prompt(sessionId, 'three')
    const fourth = run.prompt(sessionId, 'four')
    await until(() => queuedStates(run.updatesOf(sessionId), 'queued').length === 3)
    const read = await run.agent.agent.request<{ queuedMessages: { messageId: string; position: number }[] }>(
      '_session/runtime/read',
      { sessionId, resource: 'queuedMessages' },
    )
    expect(read.queuedMessages.map((q) => q.position)).toEqual([1, 2, 3])
    const thirdId = read.queuedMessages[1]?.messageId
    expect(
      await run.agent.agent.request('_session/runtime/control', {
        sessionId,
        action: 'cancelQueuedMessage',
        messageId: thirdId,
      }),
    ).toEqual({ cancelled: true })
    expect((await third).stopReason).toBe('cancelled')
    release.resolve()
    expect((await first).stopReason).toBe('end_turn')
    expect((await second).stopReason).toBe('end_turn')
    expect((await fourth).stopReason).toBe('end_turn')
    const prompts = run
      .loggedEvents(sessionId)
      .filter((e) => e.type === 'user/message')
      .map((e) => JSON.stringify(e.data.content))
    expect(prompts).toEqual(['one', 'two', 'four'].map((t) => JSON.stringify([text(t)])))
    expect(run.fake.requests).toHaveLength(3)
    expect(await run.agent.stop()).toBe(0)
    expect(run.agent.audit.problems).toEqual([])
  })
})

function queuedStates(updates: readonly acp.SessionNotification[], state: string) {
  return updatesOfKind(updates, 'session_info_update').filter(
    (u) =>
      (u.update._meta as { dsh?: { queued?: { state?: string } } } | undefined)?.dsh?.queued?.state === state,
  )
}
