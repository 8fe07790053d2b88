/** Why a request to an OpenAI-compatible server failed, as far as retrying is concerned. */
export interface OpenAiFailure {
  /** HTTP status, when the server answered. */
  readonly status?: number
  /** True when trying again may help (429, 5xx, a connection lost before any body byte). */
  readonly retryable: boolean
  /** The server's wish for the next attempt (`Retry-After`, `retry-after-ms`), in ms. */
  readonly retryAfterMs?: number
}

/**
 * A request to an OpenAI-compatible server that failed for good. `message` says what failed (the
 * status, the server's own error message, the URL without credentials or query) and never holds
 * the API key: every text that may come from the server or the network is passed through
 * {@link Redactor} before it lands here. Own properties are safe to serialize.
 */
export class OpenAiProviderError extends Error {
  override name = 'OpenAiProviderError'
  readonly status?: number
  readonly retryable: boolean
  readonly retryAfterMs?: number
  /** The endpoint, without credentials or query string. */
  readonly url: string

  constructor(message: string, url: string, failure: OpenAiFailure) {
    super(message)
    this.url = url
    this.retryable = failure.retryable
    if (failure.status !== undefined) this.status = failure.status
    if (failure.retryAfterMs !== undefined) this.retryAfterMs = failure.retryAfterMs
  }
}

/** Replaces every occurrence of the secrets it was given with `[REDACTED]`. */
export type Redactor = (text: string) => string

/** A {@link Redactor} for `secrets` (empty strings are ignored). */
export function createRedactor(secrets: readonly (string | undefined)[]): Redactor {
  const present = secrets.filter((secret): secret is string => secret !== undefined && secret !== '')
  if (present.length === 0) return (text) => text
  return (text) => present.reduce((out, secret) => out.split(secret).join('[REDACTED]'), text)
}

/** The error a stream throws when its signal aborted (`name === 'AbortError'`). */
export function abortError(): Error {
  return new DOMException('The model request was aborted', 'AbortError')
}

/**
 * The chat-completions endpoint for `baseUrl` (its path plus `/chat/completions`, query kept), and
 * the same endpoint as it may be shown: no credentials, no query. Throws on a URL that is not
 * http(s) or that carries credentials (fetch refuses them, and they would leak into messages).
 */
export function chatCompletionsEndpoint(baseUrl: string): { readonly url: string; readonly display: string } {
  let parsed: URL
  try {
    parsed = new URL(baseUrl)
  } catch {
    throw new TypeError('openai provider: baseUrl is not a valid URL')
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`openai provider: baseUrl must be http or https, not ${parsed.protocol}`)
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new TypeError('openai provider: baseUrl must not contain credentials; pass the key as the API key')
  }
  parsed.pathname = `${parsed.pathname.replace(/\/+$/, '')}/chat/completions`
  parsed.hash = ''
  return { url: parsed.toString(), display: `${parsed.origin}${parsed.pathname}` }
}
