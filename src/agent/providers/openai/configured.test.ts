import { afterEach, describe, expect, it } from 'vitest'
import {
  collectAll,
  completionStream,
  type FakeOpenAi,
  startFakeOpenAi,
} from '../../../../test/support/fake-openai.js'
import type { ModelRequest } from '../../types.js'
import { type ConfiguredModel, createConfiguredProvider } from './configured.js'

const servers: FakeOpenAi[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

async function server(): Promise<FakeOpenAi> {
  const fake = await startFakeOpenAi(() => ({ stream: completionStream({ text: 'ok' }) }))
  servers.push(fake)
  return fake
}

const request = (model?: string, thoughtLevel?: string): ModelRequest => ({
  sessionId: 's',
  cwd: '/',
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'hi' }] },
  ] as unknown as ModelRequest['messages'],
  tools: [],
  ...(model !== undefined && { model }),
  ...(thoughtLevel !== undefined && { thoughtLevel }),
})

describe("the configuration files' models as one provider", () => {
  it("sends each model's request to its own server with its own key, name and default reasoning effort", async () => {
    const [a, b] = [await server(), await server()]
    const models: ConfiguredModel[] = [
      { id: 'a/small', providerId: 'a', provider: { baseUrl: a.url }, model: { name: 'small' } },
      {
        id: 'b/vendor/big',
        providerId: 'b',
        provider: { baseUrl: b.url, title: 'B' },
        model: { name: 'vendor/big', title: 'Big', reasoningEffort: 'high', imageInput: true },
      },
    ]
    const keys: Record<string, string | undefined> = { a: 'key-a', b: 'key-b' }
    const provider = createConfiguredProvider(models, (id) => keys[id], { maxRetries: 0 })
    expect(provider.models).toEqual([
      { id: 'a/small', name: 'small', description: 'a' },
      { id: 'b/vendor/big', name: 'Big', description: 'B' },
    ])
    expect(provider.promptCapabilities?.image).toBe(true)
    const signal = new AbortController().signal
    await collectAll(provider.stream(request(), signal))
    await collectAll(provider.stream(request('b/vendor/big', 'default'), signal))
    await collectAll(provider.stream(request('b/vendor/big', 'low'), signal))
    expect(a.requests.map((r) => [r.body?.model, r.headers.authorization, r.body?.reasoning_effort])).toEqual(
      [['small', 'Bearer key-a', undefined]],
    )
    expect(b.requests.map((r) => [r.body?.model, r.headers.authorization, r.body?.reasoning_effort])).toEqual(
      [
        ['vendor/big', 'Bearer key-b', 'high'],
        ['vendor/big', 'Bearer key-b', 'low'],
      ],
    )
    // A key stored (or removed) after the start applies to the next request.
    keys.a = 'key-a2'
    await collectAll(provider.stream(request('a/small'), signal))
    keys.a = undefined
    await collectAll(provider.stream(request('a/small'), signal))
    expect(a.requests.slice(1).map((r) => r.headers.authorization)).toEqual(['Bearer key-a2', undefined])
  })
})

describe('a failure of a configured model', () => {
  it("names the configuration's settings, not the command line's flags", async () => {
    const fake = await startFakeOpenAi(() => ({ status: 401, body: { error: { message: 'bad key' } } }))
    servers.push(fake)
    const provider = createConfiguredProvider(
      [
        {
          id: 'ds/chat',
          providerId: 'ds',
          provider: { baseUrl: fake.url, apiKeyEnv: 'DS_KEY' },
          model: { name: 'chat' },
        },
      ],
      () => 'sk-1',
      { maxRetries: 0 },
    )
    const error = await collectAll(provider.stream(request(), new AbortController().signal)).catch(
      (e: Error) => e,
    )
    expect(String(error)).toContain(
      'It did not accept the key in $DS_KEY (or the key dsh-acp setup stored for ds)',
    )
    expect(String(error)).not.toContain('DSH_API_KEY')
  })
})

describe("the configuration files' models: system prompt, windows and prices", () => {
  const price = { input: 1, output: 2 }
  const models: ConfiguredModel[] = [
    {
      id: 'd/deepseek-chat',
      providerId: 'd',
      provider: { baseUrl: 'http://127.0.0.1:9' },
      model: { name: 'deepseek-chat' },
    },
    {
      id: 'x/own',
      providerId: 'x',
      provider: { baseUrl: 'http://127.0.0.1:9' },
      model: { name: 'own', contextWindow: 4000, prices: price },
    },
  ]

  it('takes the system prompt, and answers each model’s window (the file’s, else the table’s by its name) and price', () => {
    const provider = createConfiguredProvider(models, () => undefined, {})
    expect(provider.takesSystemPrompt).toBe(true)
    expect(provider.contextWindow?.('x/own')).toBe(4000)
    expect(provider.contextWindow?.('d/deepseek-chat')).toBeGreaterThan(4000)
    expect(provider.pricing?.('x/own')).toEqual(price)
    expect(provider.pricing?.('d/deepseek-chat')).toBeUndefined()
  })

  it('lets --context-window and --price-* win over the file', () => {
    const flags = { input: 5, output: 6 }
    const provider = createConfiguredProvider(models, () => undefined, { contextWindow: 1234, prices: flags })
    expect(provider.contextWindow?.('x/own')).toBe(1234)
    expect(provider.pricing?.('d/deepseek-chat')).toEqual(flags)
  })
})
