import { afterEach, describe, expect, it } from 'vitest'
import {
  collectAll,
  completionStream,
  type FakeOpenAi,
  startFakeOpenAi,
} from '../../../../test/support/fake-openai.js'
import { openAiProviderFromOptions } from './index.js'

let fake: FakeOpenAi | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

describe('openAiProviderFromOptions', () => {
  it('maps the CLI options (base URL, model name, key) onto a working provider', async () => {
    fake = await startFakeOpenAi([
      { stream: completionStream({ text: 'hi', usage: { prompt: 1, completion: 1 } }) },
    ])
    const provider = openAiProviderFromOptions({
      baseUrl: fake.url,
      modelName: 'deepseek-chat',
      apiKey: 'k1',
      contextWindow: 1000,
    })
    expect(provider.name).toBe('openai')
    const chunks = await collectAll(
      provider.stream({ sessionId: 's', cwd: '/', messages: [], tools: [] }, AbortSignal.timeout(20_000)),
    )
    expect(chunks).toContainEqual({
      type: 'usage',
      usage: { inputTokens: 1, outputTokens: 1 },
      contextWindow: 1000,
    })
    expect(fake.requests[0]?.body?.model).toBe('deepseek-chat')
    expect(fake.requests[0]?.headers.authorization).toBe('Bearer k1')
  })

  it('takes the model name from the spec argument and names a missing flag', () => {
    expect(openAiProviderFromOptions({ baseUrl: 'http://127.0.0.1:1/v1' }, 'qwen3').name).toBe('openai')
    expect(() => openAiProviderFromOptions({ modelName: 'm' })).toThrow(/--base-url/)
    expect(() => openAiProviderFromOptions({ baseUrl: 'http://127.0.0.1:1/v1' })).toThrow(/--model-name/)
  })
})
