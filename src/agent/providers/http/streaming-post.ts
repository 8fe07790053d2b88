import { setTimeout as delay } from 'node:timers/promises'
import { AbortedError } from '../../../lib/abort.js'
import { type FailureContext, httpFailure, transportFailure } from './failures.js'
import { IdleWatchdog } from './idle-watchdog.js'
import type { ModelServerError } from './model-server-error.js'
import { retryDelayMs } from './retry.js'

/** Where and how {@link postStreaming} sends its request, and how hard it tries. */
export interface StreamingTarget {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** The fetch to use (tests); the global (undici) fetch in production. */
  readonly fetch: typeof fetch
  /** Retries after the first attempt for 429, 5xx and connections lost before the body. */
  readonly maxRetries: number
  /** Backoff base: retry n waits `retryBaseMs * 2^n` (with jitter) unless the server says. */
  readonly retryBaseMs: number
  /** Longest silence tolerated from the server (before headers, or between body chunks). */
  readonly timeoutMs: number
  readonly context: FailureContext
  /** Awaited before the wait for retry number `retry` (1-based) of `maxRetries`; the failure is redacted. */
  readonly onRetry: (failure: ModelServerError, retry: number, delayMs: number) => void | Promise<void>
}

/** Hooks a response reader reports through. */
export interface ReadHooks {
  /** Called for every chunk of body bytes received (the body began; the connection is alive). */
  readonly onBytes: () => void
  /** True when the caller gave up on this response (its read errors are not the server's fault). */
  readonly aborted: () => boolean
}

/** Turns one 2xx response into items; a read error or a thrown {@link ModelServerError} ends the attempt. */
export type ResponseReader<T> = (response: Response, hooks: ReadHooks) => AsyncIterable<T>

/**
 * POSTs `body()` (made on the first `next()`) to `target.url` and yields what `read` makes of the
 * 2xx response. An attempt that fails with 429, 5xx, or a connection lost (or silent for
 * `timeoutMs`) before any body byte is retried up to `maxRetries` times with exponential backoff
 * and jitter, honouring `Retry-After`; once a body byte has arrived nothing is retried. A failure
 * that remains throws a {@link ModelServerError} saying what failed (and after how many attempts).
 * Aborting `signal` closes the HTTP request at once (also during a backoff wait) and throws an
 * error named `AbortError`. Stopping iteration early also closes the request.
 */
export async function* postStreaming<T>(
  target: StreamingTarget,
  body: () => string,
  signal: AbortSignal,
  read: ResponseReader<T>,
): AsyncGenerator<T> {
  const payload = body()
  for (let attempt = 1; ; attempt++) {
    if (signal.aborted) throw new AbortedError('The model request was aborted')
    const attemptAbort = new AbortController()
    const watchdog = new IdleWatchdog(target.timeoutMs, () => attemptAbort.abort())
    let responded = false
    let bodyStarted = false
    let wait: number
    try {
      const response = await target.fetch(target.url, {
        method: 'POST',
        headers: target.headers,
        body: payload,
        signal: AbortSignal.any([signal, attemptAbort.signal]),
      })
      responded = true
      watchdog.touch()
      if (!response.ok) throw await httpFailure(response, target.context)
      const hooks: ReadHooks = {
        onBytes: () => {
          bodyStarted = true
          watchdog.touch()
        },
        aborted: () => signal.aborted || watchdog.fired,
      }
      yield* read(response, hooks)
      return
    } catch (error) {
      if (signal.aborted) throw new AbortedError('The model request was aborted')
      const state = { responded, bodyStarted, timedOut: watchdog.fired, timeoutMs: target.timeoutMs }
      const failure = transportFailure(error, state, target.context)
      if (!failure.retryable || attempt > target.maxRetries) throw failure.afterAttempts(attempt)
      wait = retryDelayMs(attempt - 1, target.retryBaseMs, failure.retryAfterMs)
      await target.onRetry(failure, attempt, wait)
    } finally {
      watchdog.stop()
      attemptAbort.abort()
    }
    await delay(wait, undefined, { signal })
  }
}
