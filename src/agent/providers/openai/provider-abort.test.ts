import { afterEach, describe, expect, it } from 'vitest'
import {
  chunk,
  collectUntilError,
  type FakeOpenAi,
  type FakeScript,
  startFakeOpenAi,
} from '../../../../test/support/fake-openai.js'
import type { ModelChunk, ModelRequest } from '../../types.js'
import { createOpenAiProvider, type OpenAiProviderOptions } from './index.js'

const REQUEST: ModelRequest = { sessionId: 'ses_1', cwd: '/w', messages: [], tools: [] }

const servers: FakeOpenAi[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((fake) => fake.close()))
})

async function serve(script: FakeScript): Promise<FakeOpenAi> {
  const fake = await startFakeOpenAi(script)
  servers.push(fake)
  return fake
}

function stream(fake: FakeOpenAi, signal: AbortSignal, options: Partial<OpenAiProviderOptions> = {}) {
  const openai = createOpenAiProvider({
    baseUrl: fake.url,
    model: 'm',
    apiKey: 'k',
    retryBaseMs: 1,
    ...options,
  })
  return openai.stream(REQUEST, signal)
}

/** Resolves once the fake has received `count` requests. */
async function requestsReceived(fake: FakeOpenAi, count: number): Promise<void> {
  while (fake.requests.length < count) await new Promise((resolve) => setTimeout(resolve, 5))
}

describe('openai provider: abort', () => {
  it('closes the HTTP request at once when aborted mid-stream and throws an AbortError', async () => {
    const fake = await serve([{ stream: [chunk({ content: 'first' }), { waitForClose: true }] }])
    const controller = new AbortController()
    const items: ModelChunk[] = []
    const error = await (async () => {
      try {
        for await (const item of stream(fake, controller.signal)) {
          items.push(item)
          controller.abort()
        }
      } catch (thrown) {
        return thrown
      }
      return undefined
    })()
    expect(items).toEqual([{ type: 'text', text: 'first' }])
    expect(error).toMatchObject({ name: 'AbortError' })
    await fake.requests[0]?.closed
    expect(fake.requests[0]?.clientHungUp).toBe(true)
  })

  it('aborts a request still waiting for the response headers', async () => {
    const fake = await serve([{ hang: true }])
    const controller = new AbortController()
    const running = collectUntilError(stream(fake, controller.signal))
    await requestsReceived(fake, 1)
    controller.abort()
    expect((await running).error).toMatchObject({ name: 'AbortError' })
    await fake.requests[0]?.closed
    expect(fake.requests[0]?.clientHungUp).toBe(true)
  })

  it('stops waiting for a retry when aborted during the backoff', async () => {
    // The server asks for an hour (capped to a minute): only the abort can end this within the test timeout.
    const fake = await serve(() => ({
      status: 429,
      headers: { 'retry-after': '3600' },
      body: { error: 'busy' },
    }))
    const controller = new AbortController()
    const running = collectUntilError(stream(fake, controller.signal))
    await requestsReceived(fake, 1)
    await fake.requests[0]?.closed
    controller.abort()
    expect((await running).error).toMatchObject({ name: 'AbortError' })
    expect(fake.requests).toHaveLength(1)
  })

  it('sends nothing when the signal is already aborted', async () => {
    const fake = await serve([{ hang: true }])
    const { error } = await collectUntilError(stream(fake, AbortSignal.abort()))
    expect(error).toMatchObject({ name: 'AbortError' })
    expect(fake.requests).toHaveLength(0)
  })

  it('closes the HTTP request when the caller stops iterating early', async () => {
    const fake = await serve([{ stream: [chunk({ content: 'first' }), { waitForClose: true }] }])
    for await (const item of stream(fake, new AbortController().signal)) {
      expect(item).toEqual({ type: 'text', text: 'first' })
      break
    }
    await fake.requests[0]?.closed
    expect(fake.requests[0]?.clientHungUp).toBe(true)
  })
})

/** Long enough that a loaded machine still connects and starts the body within it. */
const SILENCE_MS = 250

describe('openai provider: a silent server', () => {
  it('retries a server silent before the body began, then says it sent nothing', async () => {
    const fake = await serve(() => ({ stream: [{ waitForClose: true }] }))
    const { error } = await collectUntilError(
      stream(fake, new AbortController().signal, { timeoutMs: SILENCE_MS, maxRetries: 1 }),
    )
    expect((error as Error).message).toBe(
      `the model server at ${fake.url}/chat/completions sent nothing for ${SILENCE_MS} ms, still after 2 attempts. It may be overloaded or still loading the model; retry the turn, or allow longer with --request-timeout.`,
    )
    // The client may give up before the server got to record the second request (a loaded machine).
    await expect.poll(() => fake.requests.length).toBe(2)
  })

  it('fails without retrying a stream that stalls after it began', async () => {
    const fake = await serve(() => ({ stream: [chunk({ content: 'half' }), { waitForClose: true }] }))
    const { items, error } = await collectUntilError(
      stream(fake, new AbortController().signal, { timeoutMs: SILENCE_MS }),
    )
    expect(items).toEqual([{ type: 'text', text: 'half' }])
    expect((error as Error).message).toBe(
      `the model server at ${fake.url}/chat/completions went silent for ${SILENCE_MS} ms before the model finished. Retry the turn, or allow longer with --request-timeout.`,
    )
    expect(fake.requests).toHaveLength(1)
  })
})
