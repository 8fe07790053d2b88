/** Why a request to a model server failed, as far as retrying is concerned. */
export interface ServerFailure {
  /** HTTP status, when the server answered. */
  readonly status?: number
  /** True when trying again may help (429, 5xx, a connection lost before any body byte). */
  readonly retryable: boolean
  /** The server's wish for the next attempt (`Retry-After`, `retry-after-ms`), in ms. */
  readonly retryAfterMs?: number
}

/**
 * A request to a model server that failed for good. `message` says what failed (the status, the
 * server's own error message, the URL without credentials or query) and never holds the API key:
 * every text that may come from the server or the network is passed through a
 * {@link import('./redact.js').Redactor} before it lands here. Own properties are safe to serialize.
 */
export class ModelServerError extends Error {
  override name = 'ModelServerError'
  readonly status?: number
  readonly retryable: boolean
  readonly retryAfterMs?: number
  /** The endpoint, without credentials or query string. */
  readonly url: string

  constructor(message: string, url: string, failure: ServerFailure) {
    super(message)
    this.url = url
    this.retryable = failure.retryable
    if (failure.status !== undefined) this.status = failure.status
    if (failure.retryAfterMs !== undefined) this.retryAfterMs = failure.retryAfterMs
  }
}
