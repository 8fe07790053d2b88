import { createServer } from 'node:net'
import { describe, expect, it } from 'vitest'
import { chunk, completionStream, type FakeReply } from '../support/fake-openai.js'
import { expectCleanExit, openAiAgents } from '../support/openai-agent.js'
import { chunkTexts, messagesOf, until } from '../support/openai-wire.js'

/**
 * What a real user of an OpenAI-compatible endpoint runs into: a server that is not running, a
 * keyless local server, a reply cut by the token limit, a model that never stops calling tools,
 * a non-retryable error, cancel during a retry wait, and content blocks the editor attaches.
 */

const start = openAiAgents()

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe('openai provider end to end: what real endpoints do', () => {
  it('a server that is not running: the prompt fails saying it could not be reached', async () => {
    // The default backoff runs between the 4 attempts (1.75-3.5 s in all).
    const port = await closedPort()
    const run = await start({ script: [], args: ['--base-url', `http://127.0.0.1:${port}/v1`] })
    const sessionId = await run.newSession()
    await expect(run.prompt(sessionId, 'anyone?')).rejects.toMatchObject({
      code: -32020,
      message: expect.stringMatching(
        /^the model failed: could not reach the model server at http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: the connection was refused, still after 4 attempts\. Check that the server is running/,
      ),
    })
    expect(run.loggedEvents(sessionId).at(-1)).toMatchObject({ data: { reason: 'error' } })
    await expectCleanExit(run)
  }, 20_000)

  it('an empty DSH_API_KEY (Ollama, llama.cpp) sends no Authorization header', async () => {
    const run = await start({
      script: [{ stream: completionStream({ text: 'local model here' }) }],
      apiKey: '',
    })
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'hi')).stopReason).toBe('end_turn')
    expect(run.fake.requests[0]?.headers.authorization).toBeUndefined()
    await expectCleanExit(run)
  })

  it('a non-retryable 400 (e.g. an unknown model name) fails at once with the server message', async () => {
    const run = await start({
      script: [{ status: 400, body: { error: { message: 'Model Not Exist' } } }],
    })
    const sessionId = await run.newSession()
    await expect(run.prompt(sessionId, 'hi')).rejects.toMatchObject({
      code: -32020,
      message: expect.stringContaining('HTTP 400 Bad Request: Model Not Exist'),
    })
    expect(run.fake.requests).toHaveLength(1)
    await expectCleanExit(run)
  })

  it('finish_reason length ends the turn max_tokens with the text kept', async () => {
    const run = await start({
      script: [{ stream: completionStream({ text: 'a long answer that got cu', finishReason: 'length' }) }],
    })
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'essay please')).stopReason).toBe('max_tokens')
    const events = run.loggedEvents(sessionId)
    expect(events.find((e) => e.type === 'assistant/message')?.data.content).toBe('a long answer that got cu')
    expect(events.at(-1)).toMatchObject({ data: { reason: 'max-tokens' } })
    await expectCleanExit(run)
  })

  it('a model that never stops calling tools ends max_turn_requests after 32 requests', async () => {
    let n = 0
    const loop = (): FakeReply => {
      n += 1
      return {
        stream: completionStream({
          toolCalls: [{ id: `call_${n}`, name: 'read_text_file', arguments: '{"path":"missing.txt"}' }],
        }),
      }
    }
    const run = await start({ script: loop })
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'loop')).stopReason).toBe('max_turn_requests')
    expect(run.fake.requests).toHaveLength(32)
    const events = run.loggedEvents(sessionId)
    expect(events.filter((e) => e.type === 'tool/result')).toHaveLength(32)
    expect(events.at(-1)).toMatchObject({ data: { reason: 'max-turn-requests' } })
    await expectCleanExit(run)
  })

  it('cancel during the wait before a retry: no further request, stopReason cancelled', async () => {
    const run = await start({
      script: [
        { status: 503, headers: { 'retry-after': '30' }, body: { error: { message: 'overloaded' } } },
        { stream: completionStream({ text: 'after the outage' }) },
      ],
    })
    const sessionId = await run.newSession()
    const prompt = run.prompt(sessionId, 'hi')
    await until(() => run.agent.stderr.includes('retry 1 of 3'))
    await run.agent.agent.notify('session/cancel', { sessionId })
    expect((await prompt).stopReason).toBe('cancelled')
    expect(run.fake.requests).toHaveLength(1)
    expect(run.loggedEvents(sessionId).at(-1)).toMatchObject({ data: { reason: 'cancelled' } })
    expect((await run.prompt(sessionId, 'now?')).stopReason).toBe('end_turn')
    await expectCleanExit(run)
  })

  it('text, a resource link and an embedded resource reach the model as one user message', async () => {
    const run = await start({ script: [{ stream: completionStream({ text: 'seen' }) }] })
    const sessionId = await run.newSession()
    await run.agent.agent.request('session/prompt', {
      sessionId,
      prompt: [
        { type: 'text', text: 'Explain this:' },
        { type: 'resource_link', uri: 'file:///work/project/a.ts', name: 'a.ts' },
        {
          type: 'resource',
          resource: {
            uri: 'file:///work/project/b.ts',
            text: 'export const b = 1',
            mimeType: 'text/x-typescript',
          },
        },
      ],
    })
    const [user] = messagesOf(run.fake.requests[0]) as { role: string; content: string }[]
    expect(user?.role).toBe('user')
    expect(user?.content).toContain('Explain this:')
    expect(user?.content).toContain('file:///work/project/a.ts')
    expect(user?.content).toContain('export const b = 1')
    await expectCleanExit(run)
  })

  it('a tool call whose arguments are not JSON gets an error result, and the model goes on', async () => {
    const run = await start({
      script: [
        {
          stream: [
            chunk({ role: 'assistant', content: '' }),
            chunk({
              tool_calls: [
                {
                  index: 0,
                  id: 'call_bad',
                  type: 'function',
                  function: { name: 'read_text_file', arguments: '{"pa' },
                },
              ],
            }),
            chunk({}, 'tool_calls'),
            { data: '[DONE]' },
          ],
        },
        { stream: completionStream({ text: 'sorry, retrying' }) },
      ],
    })
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'read')).stopReason).toBe('end_turn')
    const tool = messagesOf(run.fake.requests[1]).at(-1) as { role: string; content: string }
    expect(tool).toMatchObject({ role: 'tool', tool_call_id: 'call_bad' })
    expect(tool.content).toMatch(/^Error: /)
    expect(chunkTexts(run.updatesOf(sessionId), 'agent_message_chunk')).toEqual(['sorry, retrying'])
    await expectCleanExit(run)
  })
})
