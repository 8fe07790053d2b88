import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe, expect, it } from 'vitest'
import { chunk, completionStream, type FakeReply, type RecordedRequest } from '../support/fake-openai.js'
import { OpenAiAgent } from '../support/openai-agent.js'
import { chunkTexts, deferred, messagesOf, until } from '../support/openai-wire.js'

/**
 * A fork taken after a tool-using turn, end to end: the child's first model request carries
 * exactly the parent's history up to the boundary plus the child's own user message.
 */

const runs: OpenAiAgent[] = []
afterEach(async () => {
  for (const run of runs.splice(0)) await run.dispose()
})

type Message = { role: string; content?: string | null }

/**
 * The scripted model: to "write a note" it calls `write_text_file`; after a tool result it says
 * "Written."; to anything else it answers "re: <the user's text>".
 */
function model(request: RecordedRequest): FakeReply {
  const last = messagesOf(request).at(-1) as Message
  if (last.role === 'user' && last.content === 'write a note') {
    return {
      stream: completionStream({
        text: 'Writing it.',
        toolCalls: [
          { id: 'call_1', name: 'write_text_file', arguments: '{"path":"note.txt","content":"hi"}' },
        ],
      }),
    }
  }
  if (last.role === 'tool') return { stream: completionStream({ text: 'Written.' }) }
  return { stream: completionStream({ text: `re: ${last.content}` }) }
}

const allowEverything = (app: acp.ClientApp) => {
  app.onRequest('session/request_permission', () => ({
    outcome: { outcome: 'selected', optionId: 'allow_once' },
  }))
}

async function fork(run: OpenAiAgent, sessionId: string, boundary?: number): Promise<string> {
  const response = await run.agent.agent.request('session/fork', {
    sessionId,
    cwd: run.cwd,
    mcpServers: [],
    ...(boundary !== undefined && { _meta: { dsh: { boundary } } }),
  })
  return response.sessionId
}

const seqOf = (response: acp.PromptResponse) => (response._meta as { dsh: { seq: number } }).dsh.seq

/** The history the parent's tool-using first turn leaves, as the model is sent it. */
const FIRST_TURN = [
  { role: 'user', content: 'write a note' },
  {
    role: 'assistant',
    content: 'Writing it.',
    tool_calls: [
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'write_text_file', arguments: '{"path":"note.txt","content":"hi"}' },
      },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: 'Wrote 2 bytes to note.txt' },
  { role: 'assistant', content: 'Written.' },
]

describe('fork after a tool-using turn, with the openai provider', () => {
  it('at the end of the tool turn (_meta.dsh.boundary): the child sends that prefix plus its message', async () => {
    const run = await OpenAiAgent.start({ script: model, setupClient: allowEverything })
    runs.push(run)
    const parent = await run.newSession()
    const first = await run.prompt(parent, 'write a note')
    expect(first.stopReason).toBe('end_turn')
    await run.prompt(parent, 'only the parent said this')

    const child = await fork(run, parent, seqOf(first))
    const sent = run.fake.requests.length
    expect((await run.prompt(child, 'asked in the child')).stopReason).toBe('end_turn')
    expect(run.fake.requests).toHaveLength(sent + 1)
    expect(messagesOf(run.fake.requests[sent])).toEqual([
      ...FIRST_TURN,
      { role: 'user', content: 'asked in the child' },
    ])
    // The parent's second request (its turn 2) had the same prefix: the fork kept it byte for byte.
    expect(messagesOf(run.fake.requests[2]).slice(0, -1)).toEqual(FIRST_TURN)

    await run.prompt(parent, 'asked in the parent')
    const parentHistory = messagesOf(run.fake.requests.at(-1)) as Message[]
    expect(parentHistory.map((m) => m.content)).not.toContain('asked in the child')
    expect(parentHistory.at(-1)).toEqual({ role: 'user', content: 'asked in the parent' })
    expect(await run.agent.stop()).toBe(0)
    expect(run.agent.audit.problems).toEqual([])
  })

  it('by default (the last event): the child sends the whole parent history plus its message', async () => {
    const run = await OpenAiAgent.start({ script: model, setupClient: allowEverything })
    runs.push(run)
    const parent = await run.newSession()
    await run.prompt(parent, 'write a note')
    const child = await fork(run, parent)
    const sent = run.fake.requests.length
    await run.prompt(child, 'and then?')
    expect(messagesOf(run.fake.requests[sent])).toEqual([
      ...FIRST_TURN,
      { role: 'user', content: 'and then?' },
    ])

    const replay = await run.replay(child)
    const kinds = replay.map((u) => u.update.sessionUpdate)
    expect(kinds.filter((k) => k === 'tool_call' || k === 'tool_call_update')).toEqual([
      'tool_call',
      'tool_call_update',
    ])
    expect(await run.agent.stop()).toBe(0)
    expect(run.agent.audit.problems).toEqual([])
  })

  it('while the model is still streaming: the default boundary is refused, the last safe one forks', async () => {
    const release = deferred()
    let requests = 0
    const run = await OpenAiAgent.start({
      script: (request) => {
        requests += 1
        if (requests !== 2) return model(request)
        return {
          stream: [
            chunk({ role: 'assistant', content: '' }),
            chunk({ content: 'still typ' }),
            { until: release.promise },
            ...completionStream({ text: 'ing.' }).slice(1),
          ],
        }
      },
      setupClient: allowEverything,
    })
    runs.push(run)
    const parent = await run.newSession()
    const first = await run.prompt(parent, 'hello')
    const second = run.prompt(parent, 'a long question')
    await until(() => chunkTexts(run.updatesOf(parent), 'agent_message_chunk').join('').endsWith('still typ'))

    const refused = await fork(run, parent).then(
      () => undefined,
      (error: { code: number; data?: { code?: string; lastSafeBoundary?: number } }) => error,
    )
    expect(refused).toMatchObject({
      code: -32602,
      data: { code: 'OPEN_TURN', lastSafeBoundary: seqOf(first) },
    })
    const child = await fork(run, parent, refused?.data?.lastSafeBoundary)
    release.resolve()
    expect((await second).stopReason).toBe('end_turn')

    const sent = run.fake.requests.length
    await run.prompt(child, 'in the child')
    expect(messagesOf(run.fake.requests[sent])).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 're: hello' },
      { role: 'user', content: 'in the child' },
    ])
    expect(await run.agent.stop()).toBe(0)
    expect(run.agent.audit.problems).toEqual([])
  })
})

describe('history read back from the store, with the openai provider', () => {
  it('after a restart, a loaded session and a fork of it send the history from disk', async () => {
    const run = await OpenAiAgent.start({ script: model, setupClient: allowEverything })
    runs.push(run)
    const parent = await run.newSession()
    await run.prompt(parent, 'write a note')
    await run.restart()

    const replay = await run.replay(parent)
    expect(chunkTexts(replay, 'agent_message_chunk')).toEqual(['Writing it.', 'Written.'])
    let sent = run.fake.requests.length
    await run.prompt(parent, 'after the restart')
    expect(messagesOf(run.fake.requests[sent])).toEqual([
      ...FIRST_TURN,
      { role: 'user', content: 'after the restart' },
    ])
    const child = await fork(
      run,
      parent,
      run.loggedEvents(parent).filter((e) => e.type === 'turn/end')[0]?.seq,
    )
    sent = run.fake.requests.length
    await run.prompt(child, 'in the child')
    expect(messagesOf(run.fake.requests[sent])).toEqual([
      ...FIRST_TURN,
      { role: 'user', content: 'in the child' },
    ])
    expect(await run.agent.stop()).toBe(0)
    expect(run.agent.audit.problems).toEqual([])
  })
})
