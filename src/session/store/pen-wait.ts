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
 * Takes the pen with `take` (awaited: a backend that must ask for it refuses before any work);
 * while another process holds it and `watch` follows the session (that process is attached in
 * spirit: what it writes is shown here as it is written), waits for it to be let go instead of
 * refusing: `waiting` is called once, then the pen is tried again at each report of the watch (its
 * turn's end written, its lock file gone) and every {@link PEN_RETRY_MS}, one try at a time.
 * Without `watch` it refuses at once, as `take` does. Rejects with `signal`'s reason when it
 * aborts first, and with any error but `SESSION_LOCKED` from a try.
 */
export async function awaitPen(
  take: () => Promise<SessionPen>,
  watch: PenWatch | undefined,
  signal: AbortSignal,
  waiting: () => void,
): Promise<SessionPen> {
  try {
    return await take()
  } catch (error) {
    if (!isLocked(error) || watch === undefined) throw error
  }
  signal.throwIfAborted()
  waiting()
  return new Promise<SessionPen>((resolve, reject) => {
    let settled = false
    let trying = false
    const stop = () => {
      settled = true
      unwatch()
      clearInterval(timer)
      signal.removeEventListener('abort', onAbort)
    }
    const attempt = async () => {
      if (settled || trying) return
      trying = true
      try {
        const pen = await take()
        if (settled) {
          // Aborted while this try was under way: the pen goes back.
          void pen.release().catch(() => {})
          return
        }
        stop()
        resolve(pen)
      } catch (error) {
        if (settled || isLocked(error)) return
        stop()
        reject(error)
      } finally {
        trying = false
      }
    }
    const onAbort = () => {
      stop()
      reject(signal.reason)
    }
    const unwatch = watch(() => void attempt())
    const timer = setInterval(() => void attempt(), PEN_RETRY_MS)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
