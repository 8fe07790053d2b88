/** The longest wait between two attempts, whatever the server asks for. */
export const MAX_RETRY_DELAY_MS = 60_000

/**
 * How long to wait before retry number `retry` (0 for the first retry): `Retry-After` when the
 * server gave one, else `baseMs * 2^retry` with jitter (a uniform factor in [0.5, 1)); capped at
 * {@link MAX_RETRY_DELAY_MS}.
 */
export function retryDelayMs(
  retry: number,
  baseMs: number,
  retryAfterMs?: number,
  random = Math.random,
): number {
  const delay = retryAfterMs ?? baseMs * 2 ** retry * (0.5 + random() / 2)
  return Math.min(Math.max(0, delay), MAX_RETRY_DELAY_MS)
}

/**
 * The server's requested wait in ms, from `retry-after-ms` (OpenAI) or `Retry-After` (seconds or
 * an HTTP date); `undefined` when neither is present and valid.
 */
export function parseRetryAfter(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms')
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Number(ms)
  const value = headers.get('retry-after')
  if (value === null) return undefined
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Number(value) * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}
