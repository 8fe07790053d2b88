import { describe, expect, it } from 'vitest'
import { ModelServerError } from './model-server-error.js'
import { createRedactor } from './redact.js'
import { postStreaming, type ResponseReader, type StreamingTarget } from './streaming-post.js'

const SECRET = 'sk-secret'

/** A fetch answering each call with the next of `answers`; it records each call's body and signal. */
function scriptedFetch(answers: readonly ((signal: AbortSignal) => Promise<Response>)[]) {
  const calls: { body: unknown; signal: AbortSignal }[] = []
  const fetch: typeof globalThis.fetch = async (_input, init) => {
    const signal = init?.signal as AbortSignal
    calls.push({ body: init?.body, signal })
    const answer = answers[calls.length - 1]
    if (!answer) throw new Error(`unexpected request ${calls.length}`)
    return answer(signal)
  }
  return { fetch, calls }
}

/** A promise that rejects with the signal's reason once it aborts: a server that sends nothing. */
function silent(signal: AbortSignal): Promise<Response> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason)
    signal.addEventListener('abort', () => reject(signal.reason), { once: true })
  })
}

function target(fetch: typeof globalThis.fetch, overrides: Partial<StreamingTarget> = {}): StreamingTarget {
  return {
    url: 'http://model.test/v1/chat/completions',
    headers: {},
    fetch,
    maxRetries: 2,
    retryBaseMs: 1,
    timeoutMs: 60_000,
    context: {
      display: 'http://model.test/v1/chat/completions',
      redact: createRedactor([SECRET]),
      keySent: true,
    },
    onRetry: () => {},
    ...overrides,
  }
}

/** Reads the body as text lines, reporting bytes as they come. */
const readLines: ResponseReader<string> = async function* (response, hooks) {
  hooks.onBytes()
  yield* (await response.text()).split('\n').filter((line) => line !== '')
}

async function collect<T>(items: AsyncIterable<T>): Promise<{ items: T[]; error?: unknown }> {
  const out: T[] = []
  try {
    for await (const item of items) out.push(item)
  } catch (error) {
    return { items: out, error }
  }
  return { items: out }
}

describe('postStreaming', () => {
  it('retries a 503 after the server-given wait, then yields what the reader makes of the answer', async () => {
    const { fetch, calls } = scriptedFetch([
      async () => new Response(`busy ${SECRET}`, { status: 503, headers: { 'retry-after-ms': '5' } }),
      async () => new Response('a\nb\n'),
    ])
    const retries: [string, number, number][] = []
    const run = postStreaming(
      target(fetch, {
        onRetry: (failure, retry, delayMs) =>
          void retries.push([`${failure.message} | ${failure.detail}`, retry, delayMs]),
      }),
      () => '{"q":1}',
      new AbortController().signal,
      readLines,
    )
    expect(await collect(run)).toEqual({ items: ['a', 'b'] })
    expect(calls.map((call) => call.body)).toEqual(['{"q":1}', '{"q":1}'])
    expect(retries).toEqual([
      [
        'the model server at http://model.test/v1/chat/completions failed (HTTP 503: busy [REDACTED]). It may be down or overloaded; the turn can be retried later. | HTTP 503: busy [REDACTED]',
        1,
        5,
      ],
    ])
  })

  it('gives up after maxRetries, saying how many attempts it made', async () => {
    const busy = async () => new Response('', { status: 500 })
    const { fetch, calls } = scriptedFetch([busy, busy, busy])
    const { error } = await collect(
      postStreaming(target(fetch), () => '', new AbortController().signal, readLines),
    )
    expect(error).toBeInstanceOf(ModelServerError)
    expect(error).toMatchObject({
      status: 500,
      retryable: true,
      message:
        'the model server at http://model.test/v1/chat/completions failed (HTTP 500), still after 3 attempts. It may be down or overloaded; the turn can be retried later.',
      detail: 'HTTP 500',
    })
    expect(calls).toHaveLength(3)
  })

  it('does not retry once a body byte arrived', async () => {
    const { fetch, calls } = scriptedFetch([async () => new Response('x')])
    const failing: ResponseReader<string> = async function* (_response, hooks) {
      hooks.onBytes()
      yield 'first'
      throw new TypeError('terminated')
    }
    const { items, error } = await collect(
      postStreaming(target(fetch), () => '', new AbortController().signal, failing),
    )
    expect(items).toEqual(['first'])
    expect(error).toMatchObject({
      message:
        'the model server at http://model.test/v1/chat/completions broke off the answer before the model finished. The turn can be retried.',
      detail: 'terminated',
    })
    expect(calls).toHaveLength(1)
  })

  it('retries a server silent for timeoutMs before the answer, then says it sent nothing', async () => {
    const { fetch, calls } = scriptedFetch([silent, silent])
    const run = postStreaming(
      target(fetch, { timeoutMs: 20, maxRetries: 1 }),
      () => '',
      new AbortController().signal,
      readLines,
    )
    const { error } = await collect(run)
    expect((error as Error).message).toBe(
      'the model server at http://model.test/v1/chat/completions sent nothing for 20 ms, still after 2 attempts. It may be overloaded or still loading the model; retry the turn, or allow longer with --request-timeout.',
    )
    expect(calls.every((call) => call.signal.aborted)).toBe(true)
  })

  it('ends a backoff wait as soon as the signal aborts, with an AbortError', async () => {
    const { fetch, calls } = scriptedFetch([
      async () => new Response('', { status: 429, headers: { 'retry-after': '60' } }),
    ])
    const controller = new AbortController()
    const run = postStreaming(
      target(fetch, { onRetry: () => controller.abort() }),
      () => '',
      controller.signal,
      readLines,
    )
    expect((await collect(run)).error).toMatchObject({ name: 'AbortError' })
    expect(calls).toHaveLength(1)
  })

  it('closes the request when the caller aborts, and sends nothing when it already had', async () => {
    const controller = new AbortController()
    const { fetch, calls } = scriptedFetch([
      (signal) => {
        controller.abort()
        return silent(signal)
      },
    ])
    const run = postStreaming(target(fetch), () => '', controller.signal, readLines)
    expect((await collect(run)).error).toMatchObject({ name: 'AbortError' })
    expect(calls[0]?.signal.aborted).toBe(true)
    const again = postStreaming(target(fetch), () => '', controller.signal, readLines)
    expect((await collect(again)).error).toMatchObject({ name: 'AbortError' })
    expect(calls).toHaveLength(1)
  })
})
