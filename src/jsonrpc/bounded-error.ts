import type { ResponseMessage } from 'vscode-jsonrpc'

type WireError = NonNullable<ResponseMessage['error']>

/** Longest error message sent; a longer one keeps its start and end (what failed, and why). */
export const MAX_ERROR_MESSAGE = 600
/** Longest string inside an error's `data`. */
const MAX_DATA_STRING = 200
/** Most items of an array, or properties of an object, inside an error's `data`. */
const MAX_DATA_ITEMS = 50
const MAX_DATA_DEPTH = 8

/**
 * `text` cut to about `max` characters when longer: its start and its end, with how much was left
 * out between them. An error that quotes what was sent (a 20 MB id) stays short.
 */
export function clipMiddle(text: string, max: number): string {
  if (text.length <= max) return text
  const head = Math.ceil(max * 0.75)
  const tail = max - head
  return `${text.slice(0, head)}… [${text.length - head - tail} characters left out] …${text.slice(text.length - tail)}`
}

/**
 * An error response's error as it may be sent: its message at most {@link MAX_ERROR_MESSAGE}
 * characters, and in its `data` every string at most 200 characters, at most 50 items per array or
 * object, 8 levels deep. Whatever a handler or validator put into an error, an answer echoes at
 * most a short preview of what the peer sent.
 */
export function boundedError(error: WireError): WireError {
  const message = clipMiddle(error.message, MAX_ERROR_MESSAGE)
  if (error.data === undefined) return message === error.message ? error : { code: error.code, message }
  return { code: error.code, message, data: boundedValue(error.data, 0) }
}

function boundedValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return clipMiddle(value, MAX_DATA_STRING)
  if (typeof value !== 'object' || value === null) return value
  if (depth >= MAX_DATA_DEPTH) return Array.isArray(value) ? '[…]' : '{…}'
  if (Array.isArray(value)) {
    const kept = value.slice(0, MAX_DATA_ITEMS).map((item) => boundedValue(item, depth + 1))
    return value.length > MAX_DATA_ITEMS ? [...kept, `… ${value.length - MAX_DATA_ITEMS} more`] : kept
  }
  const out: Record<string, unknown> = {}
  let count = 0
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue
    if (++count > MAX_DATA_ITEMS) break
    out[clipMiddle(key, MAX_DATA_STRING)] = boundedValue((value as Record<string, unknown>)[key], depth + 1)
  }
  return out
}
