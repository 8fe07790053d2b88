/** Why a request to a model server failed, as far as retrying is concerned. */
export interface ServerFailure {
  /** HTTP status, when the server answered. */
  readonly status?: number
  /** True when trying again may help (429, 5xx, a connection lost before any body byte). */
  readonly retryable: boolean
  /** The server's wish for the next attempt (`Retry-After`, `retry-after-ms`), in ms. */
  readonly retryAfterMs?: number
  /** The technical cause (error codes, the server's full error text), for the log only. */
  readonly detail?: string
  /** The server said the request does not fit the model's context window (context-length.ts). */
  readonly contextLength?: boolean
}

/** A failure in words: what failed, then what the user can try. Neither ends with a full stop. */
export interface FailureWords {
  readonly what: string
  readonly hint: string
}

/**
 * A request to a model server that failed for good. `message` says once, in words, what failed
 * and what to try (`<what>. <hint>.`, with the number of attempts when there were several);
 * `detail` holds the technical cause for the log. Neither holds the API key: every text that may
 * come from the server or the network is passed through a
 * {@link import('./redact.js').Redactor} before it lands here. Own properties are safe to serialize.
 */
export class ModelServerError extends Error {
  override name = 'ModelServerError'
  readonly status?: number
  readonly retryable: boolean
  readonly retryAfterMs?: number
  /** The endpoint, without credentials or query string. */
  readonly url: string
  readonly detail: string
  /** The request did not fit the model's context window: compacting the conversation may help. */
  readonly contextLength: boolean
  readonly #words: FailureWords
  constructor(words: FailureWords, url: string, failure: ServerFailure, attempts = 1) {
    super(
      attempts > 1
        ? `${words.what}, still after ${attempts} attempts. ${words.hint}.`
        : `${words.what}. ${words.hint}.`,
    )
    this.#words = words
    this.url = url
    this.retryable = failure.retryable
    this.detail = failure.detail ?? ''
    this.contextLength = failure.contextLength === true
    if (failure.status !== undefined) this.status = failure.status
    if (failure.retryAfterMs !== undefined) this.retryAfterMs = failure.retryAfterMs
  }

  /** The same failure, saying it remained after `attempts` attempts (when more than one). */
  afterAttempts(attempts: number): ModelServerError {
    if (attempts <= 1) return this
    const failure = {
      retryable: this.retryable,
      detail: this.detail,
      contextLength: this.contextLength,
      ...(this.status !== undefined && { status: this.status }),
    }
    return new ModelServerError(this.#words, this.url, failure, attempts)
  }
}
