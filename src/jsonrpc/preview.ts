const MAX_DEPTH = 8

/**
 * A short JSON-like rendering of an untrusted value for the log: at most `max` characters (then
 * `…`), nesting shown `MAX_DEPTH` levels deep. Never throws, and its cost is bounded by `max`
 * whatever the value's size or depth.
 */
export function preview(value: unknown, max = 200): string {
  const out: string[] = []
  let length = 0
  const put = (text: string): boolean => {
    if (length >= max) return false
    const room = max - length
    out.push(text.length > room ? text.slice(0, room) : text)
    length += Math.min(text.length, room)
    return length < max
  }
  const walk = (item: unknown, depth: number): boolean => {
    if (typeof item === 'string') return put(JSON.stringify(item.length > max ? item.slice(0, max) : item))
    if (typeof item !== 'object' || item === null) return put(String(item))
    if (depth >= MAX_DEPTH) return put(Array.isArray(item) ? '[…]' : '{…}')
    if (Array.isArray(item)) {
      if (!put('[')) return false
      for (let i = 0; i < item.length; i++) {
        if ((i > 0 && !put(',')) || !walk(item[i], depth + 1)) return false
      }
      return put(']')
    }
    if (!put('{')) return false
    let first = true
    for (const key in item) {
      if (!Object.hasOwn(item, key)) continue
      if ((!first && !put(',')) || !put(`${JSON.stringify(key.slice(0, max))}:`)) return false
      first = false
      if (!walk((item as Record<string, unknown>)[key], depth + 1)) return false
    }
    return put('}')
  }
  try {
    walk(value, 0)
  } catch {
    return '(unprintable)'
  }
  return length >= max ? `${out.join('')}…` : out.join('')
}
