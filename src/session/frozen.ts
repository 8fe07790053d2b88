import type { JsonValue } from './events.js'

/**
 * Deep-copies a JSON value and freezes the copy. Anything that is not plain JSON (functions,
 * symbols, bigints, undefined, non-finite numbers, class instances such as Date or Map, cycles)
 * is refused with a message naming its path, because the log must read back exactly as written.
 */
export function freezeJsonCopy(value: unknown, path = '$'): JsonValue {
  return copy(value, path, new Set())
}

function copy(value: unknown, path: string, seen: Set<object>): JsonValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`${path} is ${value}, which JSON cannot hold`)
      return value
    case 'object': {
      if (value === null) return null
      if (seen.has(value)) throw new TypeError(`${path} is a circular reference`)
      seen.add(value)
      let out: JsonValue
      if (Array.isArray(value)) {
        const items: JsonValue[] = new Array(value.length)
        for (let i = 0; i < value.length; i++) items[i] = copy(value[i], `${path}[${i}]`, seen)
        out = Object.freeze(items)
      } else {
        const proto = Object.getPrototypeOf(value)
        if (proto !== Object.prototype && proto !== null) {
          throw new TypeError(
            `${path} is a ${proto?.constructor?.name ?? 'non-plain'} object, not plain JSON`,
          )
        }
        const fields: Record<string, JsonValue> = {}
        for (const key of Object.keys(value)) {
          const field = (value as Record<string, unknown>)[key]
          if (field === undefined) continue
          fields[key] = copy(field, `${path}.${key}`, seen)
        }
        out = Object.freeze(fields)
      }
      seen.delete(value)
      return out
    }
    default:
      throw new TypeError(`${path} is ${typeof value}, which JSON cannot hold`)
  }
}

/** Freezes a trusted, freshly parsed JSON value in place (no copy) and returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}
