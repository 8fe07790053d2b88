import { describe, expect, it } from 'vitest'
import { httpFailure, transportFailure } from './failures.js'
import { createRedactor } from './redact.js'

const context = {
  display: 'https://models.example.com/v1/chat/completions',
  redact: createRedactor(['sk-9']),
  keySent: true,
}
const before = { responded: false, bodyStarted: false, timedOut: false, timeoutMs: 300_000 }

/** A fetch failure as undici throws it: `TypeError: fetch failed` with the system error as cause. */
function fetchFailed(code: string, message: string): TypeError {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(message), { code }) })
}

describe('transportFailure: what the user reads, and what only the log gets', () => {
  it.each([
    [
      'ENOTFOUND',
      'getaddrinfo ENOTFOUND models.example.com',
      'its host name did not resolve. Check --base-url and the network',
    ],
    ['EAI_AGAIN', 'getaddrinfo EAI_AGAIN models.example.com', 'its host name did not resolve'],
    [
      'ECONNREFUSED',
      'connect ECONNREFUSED 10.0.0.1:443',
      'the connection was refused. Check that the server is running',
    ],
    ['UND_ERR_SOCKET', 'other side closed', 'the connection was closed. Check the network or --base-url'],
    ['ECONNRESET', 'read ECONNRESET', 'the connection was closed'],
    ['UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error', 'the connection timed out'],
    ['CERT_HAS_EXPIRED', 'certificate has expired', 'its TLS certificate was not accepted'],
    ['EWHATEVER', 'something odd', 'the connection failed'],
  ])('%s', (code, cause, words) => {
    const failure = transportFailure(fetchFailed(code, cause), before, context)
    expect(failure.message).toContain(`could not reach the model server at ${context.display}: ${words}`)
    expect(failure.message).not.toContain(code)
    expect(failure.message).not.toContain('fetch failed')
    expect(failure.detail).toBe(`fetch failed: ${code}: ${cause}`)
    expect(failure.retryable).toBe(true)
  })

  it('says which side went quiet, and after how many attempts', () => {
    const silent = transportFailure(
      new Error('aborted'),
      { ...before, timedOut: true },
      context,
    ).afterAttempts(4)
    expect(silent.message).toBe(
      `the model server at ${context.display} sent nothing for 300 s, still after 4 attempts. It may be overloaded or still loading the model; retry the turn, or allow longer with --request-timeout.`,
    )
    const stalled = transportFailure(
      new Error('aborted'),
      { ...before, responded: true, bodyStarted: true, timedOut: true },
      context,
    )
    expect(stalled.message).toMatch(/went silent for 300 s before the model finished\. Retry the turn/)
    expect(stalled.retryable).toBe(false)
  })

  it('keeps the key out of the detail', () => {
    const failure = transportFailure(fetchFailed('ECONNRESET', 'reset by sk-9'), before, context)
    expect(failure.detail).toBe('fetch failed: ECONNRESET: reset by [REDACTED]')
  })
})

describe('httpFailure: a prompt too long for the context window', () => {
  it.each([
    [
      400,
      {
        error: {
          message: "This model's maximum context length is 8192 tokens.",
          code: 'context_length_exceeded',
        },
      },
    ],
    [400, { error: { message: 'the request exceeds the available context size, try increasing it' } }],
    [400, { error: { message: 'Please reduce the length of the messages or completion.' } }],
    [413, 'Request Entity Too Large'],
  ])('HTTP %d', async (status, body) => {
    const response = new Response(typeof body === 'string' ? body : JSON.stringify(body), { status })
    const failure = await httpFailure(response, context)
    expect(failure.message).toMatch(
      /^the conversation is too long for the model's context window \(the model server at .* answered HTTP \d+.*\)\. Run \/compact, start a new session, or fork this one from an earlier turn\.$/,
    )
    expect(failure.retryable).toBe(false)
  })

  it('an ordinary 400 is not called a context problem', async () => {
    const failure = await httpFailure(
      new Response('{"error":{"message":"unknown field tools"}}', { status: 400 }),
      context,
    )
    expect(failure.message).toBe(
      `the model server at ${context.display} rejected the request (HTTP 400: unknown field tools). Check --model-name and --base-url against the server.`,
    )
  })
})
