import { isObject } from '../../../lib/is.js'
import { isContextLengthAnswer } from './context-length.js'
import { ModelServerError } from './model-server-error.js'
import type { Redactor } from './redact.js'
import { parseRetryAfter } from './retry.js'
import { type StreamLimitError, sizeText } from './stream-limits.js'

/** What every failure message needs: the endpoint as it may be shown, the key's redactor and state. */
export interface FailureContext {
  readonly display: string
  readonly redact: Redactor
  /** Whether an API key is sent (`DSH_API_KEY` set and not empty): a 401 or 403 says which. */
  readonly keySent: boolean
  /** Where the user sets the key, the model name and the base URL. Default: the command line's. */
  readonly settings?: ProviderSettingNames
}

/** How a failure message names the settings to check (the flags, or a configuration file's). */
export interface ProviderSettingNames {
  /** Where the key comes from, e.g. `DSH_API_KEY`. */
  readonly key: string
  readonly model: string
  readonly baseUrl: string
  /** The sentence for a 401 or 403 when no key was sent: why, and what to do. */
  readonly noKeySent: string
}

const FLAG_SETTINGS: ProviderSettingNames = {
  key: 'DSH_API_KEY',
  model: '--model-name',
  baseUrl: '--base-url',
  noKeySent:
    "No API key was sent (DSH_API_KEY is not set or empty): set it to the server's API key and start dsh-acp again",
}

/** How much of a server's error text the log quotes, and how much the user's message. */
const MAX_LOGGED_CHARS = 500
const MAX_SHOWN_CHARS = 200

const RETRY = 'the turn can be retried'

/**
 * The failure for a non-2xx answer: retryable for 429 and 5xx (with the server's `Retry-After`),
 * final for every other status. Quotes the server's error message (JSON `error.message`,
 * `message` or `detail`, else the start of the body), redacted; says what to try for 401/403
 * (the key), 404 (the model name or base URL), 429, 5xx, and 413 or a 400/422 whose text says the
 * prompt is too long for the context window.
 */
export async function httpFailure(response: Response, context: FailureContext): Promise<ModelServerError> {
  let body = ''
  let detail = ''
  try {
    body = await response.text()
    try {
      detail = errorText(JSON.parse(body))
    } catch {
      detail = body
    }
  } catch {
    detail = ''
  }
  detail = context.redact(detail.trim().replace(/\s+/g, ' '))
  const { status } = response
  const statusText = `HTTP ${status}${response.statusText ? ` ${response.statusText}` : ''}`
  const said = `${statusText}${detail ? `: ${clip(detail, MAX_SHOWN_CHARS)}` : ''}`
  const contextLength = isContextLengthAnswer(status, context.redact(body))
  const retryable = (status === 429 || status >= 500) && !contextLength
  const retryAfterMs = retryable ? parseRetryAfter(response.headers) : undefined
  const at = `the model server at ${context.display}`
  let words: { what: string; hint: string }
  const names = context.settings ?? FLAG_SETTINGS
  if (status === 401 || status === 403) {
    words = {
      what: `${at} refused the request (${said})`,
      hint: context.keySent
        ? `It did not accept the key in ${names.key}: check that the key is valid for this server and model`
        : names.noKeySent,
    }
  } else if (status === 404) {
    words = {
      what: `${at} answered ${said}`,
      hint: `Check the model name (${names.model}) and that ${names.baseUrl} is the API root (the part before /chat/completions, often ending in /v1)`,
    }
  } else if (contextLength) {
    words = {
      what: `the conversation is too long for the model's context window (${at} answered ${said})`,
      hint: 'Run /compact, start a new session, or fork this one from an earlier turn',
    }
  } else if (status === 429) {
    words = { what: `${at} is limiting requests (${said})`, hint: 'Wait a while, then retry the turn' }
  } else if (status >= 500) {
    words = { what: `${at} failed (${said})`, hint: `It may be down or overloaded; ${RETRY} later` }
  } else {
    words = {
      what: `${at} rejected the request (${said})`,
      hint: `Check ${names.model} and ${names.baseUrl} against the server`,
    }
  }
  const logged = `${statusText}${detail ? `: ${clip(detail, MAX_LOGGED_CHARS)}` : ''}`
  return new ModelServerError(words, context.display, {
    status,
    retryable,
    detail: logged,
    ...(retryAfterMs !== undefined && { retryAfterMs }),
    ...(contextLength && { contextLength }),
  })
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
  const detail = context.redact(describeCause(error))
  const at = `the model server at ${context.display}`
  const seconds =
    state.timeoutMs >= 1000 ? `${Math.round(state.timeoutMs / 100) / 10} s` : `${state.timeoutMs} ms`
  let words: { what: string; hint: string }
  if (state.timedOut && state.bodyStarted) {
    words = {
      what: `${at} went silent for ${seconds} before the model finished`,
      hint: `Retry the turn, or allow longer with --request-timeout`,
    }
  } else if (state.timedOut) {
    words = {
      what: `${at} sent nothing for ${seconds}`,
      hint: 'It may be overloaded or still loading the model; retry the turn, or allow longer with --request-timeout',
    }
  } else if (state.bodyStarted) {
    words = { what: `${at} broke off the answer before the model finished`, hint: 'The turn can be retried' }
  } else if (state.responded) {
    words = { what: `${at} closed the connection before the answer began`, hint: 'The turn can be retried' }
  } else {
    words = unreachable(error, context.display)
  }
  return new ModelServerError(words, context.display, { retryable: !state.bodyStarted, detail })
}

/** Why fetch could not reach the server, from the error codes undici and Node put in `cause`. */
function unreachable(error: unknown, display: string): { what: string; hint: string } {
  const codes = errorCodes(error)
  const has = (pattern: RegExp) => codes.some((code) => pattern.test(code))
  const what = `could not reach the model server at ${display}`
  if (has(/^(ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL)$/))
    return {
      what: `${what}: its host name did not resolve`,
      hint: `Check --base-url and the network; ${RETRY}`,
    }
  if (has(/^ECONNREFUSED$/))
    return {
      what: `${what}: the connection was refused`,
      hint: `Check that the server is running and that --base-url is right; ${RETRY}`,
    }
  if (has(/^(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|ENETUNREACH|EHOSTUNREACH)$/))
    return {
      what: `${what}: the connection timed out`,
      hint: `Check the network or --base-url; ${RETRY}`,
    }
  if (has(/CERT|SELF_SIGNED|TLS|SSL/))
    return {
      what: `${what}: its TLS certificate was not accepted`,
      hint: 'Check --base-url (http or https) and the certificate',
    }
  if (has(/^(ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/))
    return {
      what: `${what}: the connection was closed`,
      hint: `Check the network or --base-url; ${RETRY}`,
    }
  return { what: `${what}: the connection failed`, hint: `Check the network or --base-url; ${RETRY}` }
}

/** The failure for a stream that closed cleanly but before `[DONE]` or a `finish_reason`. */
export function endedEarlyFailure(context: FailureContext): ModelServerError {
  return new ModelServerError(
    {
      what: `the model server at ${context.display} ended the stream before the model finished`,
      hint: 'The turn can be retried',
    },
    context.display,
    { retryable: false, detail: 'the server closed the stream before [DONE] or a finish_reason' },
  )
}

/** The failure for an error the server reported inside a stream (an error payload or event, `finish_reason: "error"`). */
export function reportedFailure(serverText: string, context: FailureContext): ModelServerError {
  const text = context.redact(serverText.trim().replace(/\s+/g, ' '))
  const said = text === '' ? '' : `: ${clip(text, MAX_SHOWN_CHARS)}`
  return new ModelServerError(
    {
      what: `the model server at ${context.display} reported an error during the answer${said}`,
      hint: 'The turn can be retried',
    },
    context.display,
    { retryable: false, detail: clip(text, MAX_LOGGED_CHARS) },
  )
}

/** The failure for a stream that is not chat completions (an event that is not JSON). */
export function malformedFailure(detail: string, context: FailureContext): ModelServerError {
  return new ModelServerError(
    {
      what: `the model server at ${context.display} sent a malformed stream`,
      hint: `Check that --base-url points at an OpenAI-compatible chat completions API; ${RETRY}`,
    },
    context.display,
    { retryable: false, detail: context.redact(clip(detail, MAX_LOGGED_CHARS)) },
  )
}

/** The failure for a response that went past one of its limits (stream-limits.ts). */
export function limitFailure(error: StreamLimitError, context: FailureContext): ModelServerError {
  const size = sizeText(error.limit)
  const what =
    error.kind === 'event'
      ? `the model server at ${context.display} sent an event longer than ${size}, the limit for one event, so the answer was cut off`
      : error.kind === 'answer'
        ? `the model's answer grew past ${size}, the limit for one answer, so it was cut off`
        : `the arguments of one of the model's tool calls grew past ${size}, the limit for one tool call, so the answer was cut off`
  return new ModelServerError(
    { what, hint: 'Ask for a shorter answer or smaller steps, then retry' },
    context.display,
    {
      retryable: false,
      detail: error.message,
    },
  )
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}

/** The error codes on `error` and its causes (undici hides the reason in `cause`). */
function errorCodes(error: unknown): string[] {
  const codes: string[] = []
  let current: unknown = error
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string') codes.push(code)
    current = current.cause
  }
  return codes
}

/** The most useful short text about a fetch error, for the log. */
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
