import { afterEach, describe, expect, it } from 'vitest'
import {
  chunk,
  collectAll as collect,
  completionStream,
  type FakeOpenAi,
  type FakeScript,
  startFakeOpenAi,
} from '../../../../test/support/fake-openai.js'
import type { ModelMessage } from '../../../session/index.js'
import type { ModelRequest, ToolSpec } from '../../types.js'
import { createOpenAiProvider, type OpenAiProviderOptions } from './index.js'

const KEY = 'sk-test-SECRET-7f3a9c'

let server: FakeOpenAi | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function serve(script: FakeScript): Promise<FakeOpenAi> {
  server = await startFakeOpenAi(script)
  return server
}

/** The system prompt the turn loop would have built; the provider sends it as it is, first. */
const SYSTEM = 'You are a test.'

function request(messages: ModelMessage[] = [], tools: ToolSpec[] = []): ModelRequest {
  return { sessionId: 'ses_1', cwd: '/w', messages, tools, system: SYSTEM }
}

/** `apiKey: undefined` leaves the key out. */
function provider(
  fake: FakeOpenAi,
  options: Partial<Omit<OpenAiProviderOptions, 'apiKey'>> & { apiKey?: string | undefined } = {},
) {
  const { apiKey, ...rest } = 'apiKey' in options ? options : { ...options, apiKey: KEY }
  return createOpenAiProvider({
    baseUrl: fake.url,
    model: 'fake-model',
    ...(apiKey !== undefined && { apiKey }),
    retryBaseMs: 1,
    ...rest,
  })
}

describe('openai provider: streaming', () => {
  it('streams reasoning and text, then usage and the stop reason', async () => {
    const fake = await serve([
      {
        stream: completionStream({
          reasoning: ['Let me ', 'think'],
          text: ['Hel', 'lo ', '世界'],
          usage: { prompt: 12, completion: 5 },
        }),
      },
    ])
    const chunks = await collect(
      provider(fake, { contextWindow: 64_000 }).stream(request(), AbortSignal.timeout(20_000)),
    )
    expect(chunks).toEqual([
      { type: 'thought', text: 'Let me ' },
      { type: 'thought', text: 'think' },
      { type: 'text', text: 'Hel' },
      { type: 'text', text: 'lo ' },
      { type: 'text', text: '世界' },
      { type: 'usage', usage: { inputTokens: 12, outputTokens: 5 }, contextWindow: 64_000 },
      { type: 'stop', reason: 'end_turn' },
    ])
  })

  it('assembles two parallel tool calls streamed in interleaved fragments', async () => {
    const call = (index: number, fn: Record<string, string>, id?: string) =>
      chunk({ tool_calls: [{ index, ...(id && { id, type: 'function' }), function: fn }] })
    const fake = await serve([
      {
        stream: [
          chunk({ role: 'assistant', content: null }),
          call(0, { name: 'read_text_file', arguments: '' }, 'call_r'),
          call(1, { name: 'write_text_file', arguments: '{"path":' }, 'call_w'),
          call(0, { arguments: '{"path":"a.txt"' }),
          call(1, { arguments: '"b.txt","content":"hi\\n"}' }),
          call(0, { arguments: '}' }),
          chunk({}, 'tool_calls'),
          { raw: ': keepalive\r\n\r\n' },
          { data: '[DONE]' },
        ],
      },
    ])
    expect(await collect(provider(fake).stream(request(), AbortSignal.timeout(20_000)))).toEqual([
      { type: 'tool_call', callId: 'call_r', name: 'read_text_file', input: { path: 'a.txt' } },
      {
        type: 'tool_call',
        callId: 'call_w',
        name: 'write_text_file',
        input: { path: 'b.txt', content: 'hi\n' },
      },
      { type: 'stop', reason: 'tool_calls' },
    ])
  })

  it('accepts a stream that ends after finish_reason without [DONE], and a non-streamed JSON answer', async () => {
    const fake = await serve([
      { stream: [chunk({ content: 'ok' }, 'length')] },
      {
        status: 200,
        body: {
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: 'whole',
                tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }],
              },
              finish_reason: 'tool_calls',
            },
          ],
          usage: { prompt_tokens: 3, completion_tokens: 4 },
        },
      },
    ])
    const openai = provider(fake)
    expect(await collect(openai.stream(request(), AbortSignal.timeout(20_000)))).toEqual([
      { type: 'text', text: 'ok' },
      { type: 'stop', reason: 'max_tokens' },
    ])
    expect(await collect(openai.stream(request(), AbortSignal.timeout(20_000)))).toEqual([
      { type: 'text', text: 'whole' },
      { type: 'tool_call', callId: 'c1', name: 'f', input: { x: 1 } },
      { type: 'usage', usage: { inputTokens: 3, outputTokens: 4 } },
      { type: 'stop', reason: 'tool_calls' },
    ])
  })
})

describe('openai provider: the request', () => {
  it('posts the converted history, the tools and the streaming options with the bearer key', async () => {
    const fake = await serve([{ stream: completionStream({ text: 'ok' }) }])
    const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }
    const history: ModelMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'read a' }] },
      {
        role: 'assistant',
        content: 'Reading.',
        thought: 'hidden',
        toolCalls: [{ id: 'call_1', name: 'read_text_file', input: { path: 'a' } }],
      },
      { role: 'tool', callId: 'call_1', name: 'read_text_file', content: 'alpha', isError: false },
      { role: 'assistant', content: 'It says alpha.', toolCalls: [] },
      { role: 'user', content: [{ type: 'text', text: 'thanks' }] },
    ]
    const tools = [{ name: 'read_text_file', description: 'Reads a file', inputSchema: schema }]
    await collect(provider(fake).stream(request(history, tools), AbortSignal.timeout(20_000)))

    const [received] = fake.requests
    expect(received?.method).toBe('POST')
    expect(received?.path).toBe('/v1/chat/completions')
    expect(received?.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(received?.headers['content-type']).toBe('application/json')
    expect(received?.body).toEqual({
      model: 'fake-model',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: 'read a' },
        {
          role: 'assistant',
          content: 'Reading.',
          reasoning_content: 'hidden',
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'read_text_file', arguments: '{"path":"a"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'alpha' },
        { role: 'assistant', content: 'It says alpha.' },
        { role: 'user', content: 'thanks' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'read_text_file', description: 'Reads a file', parameters: schema },
        },
      ],
    })
  })

  it('sends no Authorization header without a key and omits empty tools', async () => {
    const fake = await serve([{ stream: completionStream({ text: 'ok' }) }])
    await collect(provider(fake, { apiKey: undefined }).stream(request(), AbortSignal.timeout(20_000)))
    expect(fake.requests[0]?.headers.authorization).toBeUndefined()
    expect(fake.requests[0]?.body).not.toHaveProperty('tools')
  })
})
