import { SessionError, SessionErrorCode } from '../errors.js'
import type { SessionPen } from './pens.js'

/**
 * While waiting for another process's pen, it is tried again this often as well as at each report
 * of the watch: the holder may die without a word (its lock goes stale), or the store cannot be
 * watched (then lock files are not reported).
 */
export const PEN_RETRY_MS = 250

/** Follows a session's stored log and pen: calls `onChange` after either may have changed. */
export type PenWatch = (onChange: () => void) => () => void

const isLocked = (error: unknown) =>
  error instanceof SessionError && error.code === SessionErrorCode.SESSION_LOCKED

/**
 * Takes the pen with `take`; while another process holds it and `watch` follows the session (that
 * process is attached in spirit: what it writes is shown here as it is written), waits for it to
 * be let go instead of refusing: `waiting` is called once, then the pen is tried again at each
 * report of the watch (its turn's end written, its lock file gone) and every {@link PEN_RETRY_MS}.
 * Without `watch` it refuses at once, as `take` does. Rejects with `signal`'s reason when it
 * aborts first, and with any error but `SESSION_LOCKED` from a try.
 */
export async function awaitPen(
  take: () => SessionPen,
  watch: PenWatch | undefined,
  signal: AbortSignal,
  waiting: () => void,
): Promise<SessionPen> {
  try {
    return take()
  } catch (error) {
    if (!isLocked(error) || watch === undefined) throw error
  }
  signal.throwIfAborted()
  waiting()
  return new Promise<SessionPen>((resolve, reject) => {
    let settled = false
    const stop = () => {
      settled = true
      unwatch()
      clearInterval(timer)
      signal.removeEventListener('abort', onAbort)
    }
    const attempt = () => {
      if (settled) return
      try {
        const pen = take()
        stop()
        resolve(pen)
      } catch (error) {
        if (isLocked(error)) return
        stop()
        reject(error)
      }
    }
    const onAbort = () => {
      stop()
      reject(signal.reason)
    }
    const unwatch = watch(attempt)
    const timer = setInterval(attempt, PEN_RETRY_MS)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
