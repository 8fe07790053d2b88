/**
 * Thrown (or rejected with) when work stopped because its signal aborted: the one AbortError this
 * project makes. Waits use the platform's (`node:timers/promises` with a `signal`), which
 * {@link isAbortError} recognises as well.
 */
export class AbortedError extends Error {
  override name = 'AbortError'
  constructor(message = 'aborted') {
    super(message)
  }
}

/** True for our {@link AbortedError} and for the `AbortError`s that Node and fetch throw. */
export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError'
}

/**
 * Settles like `promise`, except that it rejects with {@link AbortedError} as soon as `signal`
 * aborts (or at once if it already has). The work behind `promise` is not stopped by this; pass it
 * the same signal for that.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {})
    return Promise.reject(new AbortedError())
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {})
      reject(new AbortedError())
    }
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/**
 * Iterates `source` but stops at once when `signal` aborts: the pending `next()` is abandoned, the
 * source's `return()` is called (not awaited), and iteration throws {@link AbortedError}. A source
 * that ignores its signal therefore cannot hold a cancelled turn open. It sits on the path of every
 * streamed chunk, so it is a plain iterator (no generator of its own) with one abort listener for
 * the whole iteration, and nothing accumulates per item.
 */
export function abortable<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncIterableIterator<T> {
  return new AbortableIterator(source[Symbol.asyncIterator](), signal)
}

class AbortableIterator<T> implements AsyncIterableIterator<T> {
  /** Rejects the pending `next()` when the signal aborts. */
  private wake: ((error: AbortedError) => void) | undefined
  private closed = false

  constructor(
    private readonly source: AsyncIterator<T>,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener('abort', this.onAbort, { once: true })
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  next(): Promise<IteratorResult<T>> {
    if (this.closed) return Promise.resolve({ done: true, value: undefined })
    if (this.signal.aborted) {
      this.close(true)
      return Promise.reject(new AbortedError())
    }
    return new Promise((resolve, reject) => {
      this.wake = reject
      this.source.next().then(
        (result) => {
          this.wake = undefined
          if (result.done) this.close(false)
          resolve(result)
        },
        (error: unknown) => {
          this.wake = undefined
          this.close(true)
          reject(error)
        },
      )
    })
  }

  return(): Promise<IteratorResult<T>> {
    this.close(true)
    return Promise.resolve({ done: true, value: undefined })
  }

  private readonly onAbort = (): void => {
    const wake = this.wake
    if (!wake) return
    this.wake = undefined
    this.close(true)
    wake(new AbortedError())
  }

  /** Stops listening; `stopSource` asks a source that did not finish to stop (not awaited). */
  private close(stopSource: boolean): void {
    if (this.closed) return
    this.closed = true
    this.signal.removeEventListener('abort', this.onAbort)
    if (stopSource) this.source.return?.()?.catch(() => {})
  }
}
