import { isObject } from '../../../lib/is.js'
import { ModelServerError } from './model-server-error.js'
import type { Redactor } from './redact.js'
import { parseRetryAfter } from './retry.js'

/** What every failure message needs: the endpoint as it may be shown, and the key's redactor. */
export interface FailureContext {
  readonly display: string
  readonly redact: Redactor
}

/** How much of a server's error text a message quotes. */
const MAX_QUOTED_CHARS = 500

/**
 * The failure for a non-2xx answer: retryable for 429 and 5xx (with the server's `Retry-After`),
 * final for every other status. Quotes the server's error message (JSON `error.message`,
 * `message` or `detail`, else the start of the body), redacted.
 */
export async function httpFailure(response: Response, context: FailureContext): Promise<ModelServerError> {
  let detail = ''
  try {
    const text = await response.text()
    try {
      detail = errorText(JSON.parse(text))
    } catch {
      detail = text
    }
  } catch {
    detail = ''
  }
  detail = detail.trim().replace(/\s+/g, ' ')
  if (detail.length > MAX_QUOTED_CHARS) detail = `${detail.slice(0, MAX_QUOTED_CHARS)}…`
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`
  const retryable = response.status === 429 || response.status >= 500
  const retryAfterMs = retryable ? parseRetryAfter(response.headers) : undefined
  return new ModelServerError(
    context.redact(`model server ${context.display} answered ${status}${detail ? `: ${detail}` : ''}`),
    context.display,
    { status: response.status, retryable, ...(retryAfterMs !== undefined && { retryAfterMs }) },
  )
}

/** Where a transport error happened, for {@link transportFailure}. */
export interface TransportState {
  /** The response's status and headers arrived. */
  readonly responded: boolean
  /** A byte of the response body was received: the stream began, so no retry. */
  readonly bodyStarted: boolean
  /** The attempt was cut by the idle timeout rather than by the network. */
  readonly timedOut: boolean
  readonly timeoutMs: number
}

/**
 * The failure for an error thrown by fetch or by reading the body. Retryable only before any body
 * byte arrived (a refused or reset connection, a timeout waiting for the server).
 */
export function transportFailure(
  error: unknown,
  state: TransportState,
  context: FailureContext,
): ModelServerError {
  if (error instanceof ModelServerError) return error
  const cause = describeCause(error)
  const retryable = !state.bodyStarted
  let message: string
  if (state.timedOut) {
    message = `model server ${context.display} sent nothing for ${state.timeoutMs} ms`
    if (state.bodyStarted) message = `${message}; stream ended before the model finished`
  } else if (state.bodyStarted) {
    message = `model server ${context.display}: stream ended before the model finished (${cause})`
  } else if (state.responded) {
    message = `model server ${context.display}: connection lost before the answer began (${cause})`
  } else {
    message = `could not reach model server ${context.display} (${cause})`
  }
  return new ModelServerError(context.redact(message), context.display, { retryable })
}

/** The failure for a stream that closed cleanly but before `[DONE]` or a `finish_reason`. */
export function endedEarlyFailure(context: FailureContext): ModelServerError {
  return new ModelServerError(
    `model server ${context.display}: stream ended before the model finished (the server closed it)`,
    context.display,
    { retryable: false },
  )
}

/** The failure for something wrong inside a stream that began (an error event, a bad payload). */
export function streamFailure(detail: string, context: FailureContext): ModelServerError {
  return new ModelServerError(context.redact(`model server ${context.display}: ${detail}`), context.display, {
    retryable: false,
  })
}

/** The most useful short text about a fetch error: undici hides the reason in `cause`. */
function describeCause(error: unknown): string {
  const parts: string[] = []
  let current: unknown = error
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code
    parts.push(typeof code === 'string' ? `${code}: ${current.message}` : current.message)
    current = current.cause
  }
  return parts.length > 0 ? parts.join(': ') : String(error)
}

/** Appends how many attempts were made, when more than one. */
export function withAttempts(error: ModelServerError, attempts: number): ModelServerError {
  if (attempts <= 1) return error
  const failure = {
    retryable: error.retryable,
    ...(error.status !== undefined && { status: error.status }),
  }
  return new ModelServerError(`${error.message} (gave up after ${attempts} attempts)`, error.url, failure)
}

/** The human part of an error value a server sent (`{message}`, `{error:{message}}`, `{detail}`, or a string). */
export function errorText(error: unknown): string {
  if (typeof error === 'string') return error
  if (isObject(error)) {
    if (typeof error.message === 'string') return error.message
    if (error.error !== undefined) return errorText(error.error)
    if (typeof error.detail === 'string') return error.detail
  }
  return JSON.stringify(error) ?? String(error)
}
