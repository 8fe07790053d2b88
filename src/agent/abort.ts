/** Thrown (or rejected with) when work stopped because its signal aborted. */
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
 * that ignores its signal therefore cannot hold a cancelled turn open. One abort listener serves
 * the whole iteration (it runs per streamed chunk), and nothing accumulates per item.
 */
export async function* abortable<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]()
  let finished = false
  let wake: ((next: IteratorResult<T> | typeof ABORTED) => void) | undefined
  const onAbort = () => wake?.(ABORTED)
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    while (true) {
      if (signal.aborted) throw new AbortedError()
      const next = await new Promise<IteratorResult<T> | typeof ABORTED>((resolve, reject) => {
        wake = resolve
        iterator.next().then(resolve, reject)
      })
      wake = undefined
      if (next === ABORTED) throw new AbortedError()
      if (next.done) {
        finished = true
        return
      }
      yield next.value
    }
  } finally {
    signal.removeEventListener('abort', onAbort)
    if (!finished) iterator.return?.()?.catch(() => {})
  }
}

const ABORTED: unique symbol = Symbol('aborted')

/** Resolves after `ms`, or rejects with {@link AbortedError} as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new AbortedError())
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(new AbortedError())
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
