import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import {
  chunk,
  collectAll,
  collectUntilError,
  completionStream,
  type FakeOpenAi,
  type FakeScript,
  startFakeOpenAi,
} from '../../../../test/support/fake-openai.js'
import type { ModelChunk, ModelRequest } from '../../types.js'
import { createOpenAiProvider, ModelServerError, type OpenAiProviderOptions } from './index.js'

const KEY = 'sk-test-SECRET-7f3a9c'
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

function stream(baseUrl: string, options: Partial<OpenAiProviderOptions> = {}) {
  const openai = createOpenAiProvider({ baseUrl, model: 'm', apiKey: KEY, retryBaseMs: 1, ...options })
  return openai.stream(REQUEST, AbortSignal.timeout(20_000))
}

/** Every way the error could surface text: message, stack, own properties, JSON. */
function surfaces(error: unknown): string {
  const e = error as Error
  return [e.message, e.stack, JSON.stringify(e), JSON.stringify(Object.getOwnPropertyDescriptors(e))].join(
    '\n',
  )
}

describe('openai provider: retries', () => {
  it('retries a 429 and succeeds, honouring Retry-After over its own backoff', async () => {
    const fake = await serve([
      { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'slow down' } } },
      { status: 503, headers: { 'retry-after-ms': '1' }, body: 'busy' },
      { stream: completionStream({ text: 'finally' }) },
    ])
    // A 10-minute backoff base: only the server's Retry-After lets this finish within the test timeout.
    const chunks = await collectAll(stream(fake.url, { retryBaseMs: 600_000 }))
    expect(chunks).toEqual([
      { type: 'text', text: 'finally' },
      { type: 'stop', reason: 'end_turn' },
    ])
    expect(fake.requests).toHaveLength(3)
    expect(fake.requests[2]?.body).toEqual(fake.requests[0]?.body)
  })

  it('gives up after maxRetries 5xx answers with a message saying what failed', async () => {
    const fake = await serve(() => ({ status: 500, body: { error: { message: 'model overloaded' } } }))
    const { items, error } = await collectUntilError(stream(fake.url, { maxRetries: 2 }))
    expect(items).toEqual([])
    expect(fake.requests).toHaveLength(3)
    expect(error).toBeInstanceOf(ModelServerError)
    expect(error).toMatchObject({ status: 500, retryable: true, url: `${fake.url}/chat/completions` })
    expect((error as Error).message).toBe(
      `the model server at ${fake.url}/chat/completions failed (HTTP 500 Internal Server Error: model overloaded), still after 3 attempts. It may be down or overloaded; the turn can be retried later.`,
    )
  })

  it('fails at once on a 4xx other than 429', async () => {
    const fake = await serve(() => ({
      status: 400,
      body: { error: { message: 'unknown model m', type: 'invalid' } },
    }))
    const { error } = await collectUntilError(stream(fake.url))
    expect(fake.requests).toHaveLength(1)
    expect(error).toMatchObject({ status: 400, retryable: false })
    expect((error as Error).message).toBe(
      `the model server at ${fake.url}/chat/completions rejected the request (HTTP 400 Bad Request: unknown model m). Check --model-name and --base-url against the server.`,
    )
  })

  it('retries a connection closed before any byte, and reports a server that cannot be reached', async () => {
    const fake = await serve([{ reset: true }, { stream: completionStream({ text: 'ok' }) }])
    expect(await collectAll(stream(fake.url))).toContainEqual({ type: 'text', text: 'ok' })
    expect(fake.requests).toHaveLength(2)

    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const { port } = closed.address() as AddressInfo
    await new Promise((resolve) => closed.close(resolve))
    const { error } = await collectUntilError(stream(`http://127.0.0.1:${port}/v1`, { maxRetries: 1 }))
    expect((error as Error).message).toMatch(
      new RegExp(
        `^could not reach the model server at http://127.0.0.1:${port}/v1/chat/completions: the connection was refused, still after 2 attempts\\. Check that the server is running and that --base-url is right; the turn can be retried\\.$`,
      ),
    )
  })
})

describe('openai provider: a stream that breaks', () => {
  it('yields what arrived, then throws when the server dies mid-stream, without retrying', async () => {
    let shown!: () => void
    const answerShown = new Promise<void>((resolve) => {
      shown = resolve
    })
    const fake = await serve(() => ({
      stream: [
        chunk({ content: 'partial ' }),
        chunk({ content: 'answer' }),
        { until: answerShown },
        { destroy: true },
      ],
    }))
    const items: ModelChunk[] = []
    const failed = (async () => {
      for await (const item of stream(fake.url)) {
        items.push(item)
        if (items.length === 2) shown()
      }
    })()
    const error = await failed.then(
      () => undefined,
      (thrown: unknown) => thrown,
    )
    expect(items).toEqual([
      { type: 'text', text: 'partial ' },
      { type: 'text', text: 'answer' },
    ])
    expect((error as Error).message).toMatch(
      /^the model server at http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions broke off the answer before the model finished\. The turn can be retried\.$/,
    )
    expect(error).toMatchObject({ retryable: false })
    expect(fake.requests).toHaveLength(1)
  })

  it('retries a connection lost after the headers but before any body byte', async () => {
    const fake = await serve([{ stream: [{ destroy: true }] }, { stream: completionStream({ text: 'ok' }) }])
    expect(await collectAll(stream(fake.url))).toContainEqual({ type: 'text', text: 'ok' })
    expect(fake.requests).toHaveLength(2)
    const again = await serve(() => ({ stream: [{ destroy: true }] }))
    const { error } = await collectUntilError(stream(again.url, { maxRetries: 1 }))
    expect((error as Error).message).toMatch(
      /closed the connection before the answer began, still after 2 attempts\. The turn can be retried\.$/,
    )
  })

  it('throws when the server closes the stream cleanly before [DONE] or a finish_reason', async () => {
    const fake = await serve([{ stream: [chunk({ content: 'cut' })] }])
    const { items, error } = await collectUntilError(stream(fake.url))
    expect(items).toEqual([{ type: 'text', text: 'cut' }])
    expect((error as Error).message).toBe(
      `the model server at ${fake.url}/chat/completions ended the stream before the model finished. The turn can be retried.`,
    )
  })

  it('throws an error the server reports mid-stream', async () => {
    const fake = await serve([
      { stream: [chunk({ content: 'a' }), { data: { error: { message: 'CUDA out of memory' } } }] },
      { stream: [{ raw: 'event: error\ndata: {"message":"overloaded"}\n\n' }] },
      { stream: [{ raw: 'data: {not json\n\n' }] },
    ])
    for (const expected of [
      { message: /reported an error during the answer: CUDA out of memory\./ },
      { message: /reported an error during the answer: overloaded\./ },
      { message: /sent a malformed stream\. Check that --base-url/, detail: /not JSON: \{not json/ },
    ]) {
      const { error } = await collectUntilError(stream(fake.url))
      expect(error).toMatchObject(expected)
    }
    expect(fake.requests).toHaveLength(3)
  })
})

describe('openai provider: the API key stays secret', () => {
  it('never puts the key in an error, even when the server echoes it', async () => {
    const echo = `Incorrect API key provided: ${KEY}`
    const fake = await serve([
      { status: 401, body: { error: { message: echo } } },
      { status: 500, body: `<html>${echo}</html>` },
      { stream: [chunk({ content: 'x' }), { data: { error: { message: echo } } }] },
      { stream: [{ raw: `event: error\ndata: ${echo}\n\n` }] },
    ])
    const errors: unknown[] = []
    for (let i = 0; i < 4; i++)
      errors.push((await collectUntilError(stream(fake.url, { maxRetries: 0 }))).error)
    expect(fake.requests.map((r) => r.headers.authorization)).toEqual(Array(4).fill(`Bearer ${KEY}`))
    for (const error of errors) {
      expect((error as Error).message).toContain('[REDACTED]')
      expect(surfaces(error)).not.toContain(KEY)
    }
  })

  it('keeps the key out of unreachable-server errors, the provider object and config errors', async () => {
    const { error } = await collectUntilError(stream('http://127.0.0.1:1/v1', { maxRetries: 0 }))
    expect(surfaces(error)).not.toContain(KEY)
    const openai = createOpenAiProvider({ baseUrl: 'http://127.0.0.1:1', model: 'm', apiKey: KEY })
    expect(JSON.stringify(openai)).not.toContain(KEY)
    const creating = (options: Partial<OpenAiProviderOptions>) => () =>
      createOpenAiProvider({ baseUrl: 'http://127.0.0.1:1', model: 'm', apiKey: KEY, ...options })
    expect(creating({ apiKey: `${KEY}\n` })).toThrow(/not allowed in an HTTP header/)
    expect(creating({ baseUrl: `http://user:${KEY}@127.0.0.1:1/v1` })).toThrow(/must not contain credentials/)
    for (const options of [{ apiKey: `${KEY}\n` }, { baseUrl: `http://user:${KEY}@127.0.0.1:1/v1` }]) {
      try {
        creating(options)()
      } catch (thrown) {
        expect(surfaces(thrown)).not.toContain(KEY)
      }
    }
  })

  it('shows the URL without its query string', async () => {
    const fake = await serve([{ status: 404, body: { message: 'no route' } }])
    const { error } = await collectUntilError(stream(`${fake.url}?api-key=${KEY}`))
    expect(fake.requests[0]?.path).toBe(`/v1/chat/completions?api-key=${KEY}`)
    expect((error as Error).message).toBe(
      `the model server at ${fake.url}/chat/completions answered HTTP 404 Not Found: no route. Check the model name (--model-name) and that --base-url is the API root (the part before /chat/completions, often ending in /v1).`,
    )
  })
})
