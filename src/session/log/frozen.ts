import { SessionError, SessionErrorCode } from '../errors.js'
import type { JsonObject, JsonValue } from './events.js'

/**
 * How deep a value the log accepts may nest: objects and arrays inside one another, counting the
 * event itself as level 1. Deeper values are refused before they enter the log: every accepted
 * event then serializes (V8's `JSON.stringify` overflows its stack a few thousand levels down).
 */
export const MAX_JSON_DEPTH = 256

/**
 * Deep-copies a JSON value and freezes the copy. Anything that is not plain JSON (functions,
 * symbols, bigints, undefined, non-finite numbers, class instances such as Date or Map, cycles)
 * or nests deeper than {@link MAX_JSON_DEPTH} (with `value` itself at level `depth + 1`) is refused
 * with a message naming its path, because the log must read back exactly as written. Keys are
 * kept as they are, `__proto__` included. What this returns always serializes with
 * `JSON.stringify` and parses back equal.
 */
export function freezeJsonCopy(value: unknown, path = '$', depth = 0): JsonValue {
  try {
    return fastCopy(value, depth + 1)
  } catch {
    // Refused (or a stack overflow): the careful walk finds the first problem and names its path.
    return copy(value, path, depth + 1, new Set())
  }
}

/**
 * The copy of {@link copy} for values it accepts, without paths or a cycle set (the per-event hot
 * path): anything it would refuse throws a bare `Refused`, and a cycle nests past the depth limit.
 */
function fastCopy(value: unknown, depth: number): JsonValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      if (!Number.isFinite(value)) throw refused
      return value
    case 'object': {
      if (value === null) return null
      if (depth > MAX_JSON_DEPTH) throw refused
      if (Array.isArray(value)) {
        const items: JsonValue[] = new Array(value.length)
        for (let i = 0; i < value.length; i++) items[i] = fastCopy(value[i], depth + 1)
        return Object.freeze(items)
      }
      const proto = Object.getPrototypeOf(value)
      if (proto !== Object.prototype && proto !== null) throw refused
      const fields: Record<string, JsonValue> = {}
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue
        const field = (value as Record<string, unknown>)[key]
        if (field === undefined) continue
        if (key === '__proto__') throw refused // rare: the careful walk defines it as an own field
        fields[key] = fastCopy(field, depth + 1)
      }
      return Object.freeze(fields)
    }
    default:
      throw refused
  }
}

/** What {@link fastCopy} throws; never seen outside this module. */
const refused = new Error('refused')

function copy(value: unknown, path: string, depth: number, seen: Set<object>): JsonValue {
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
      if (depth > MAX_JSON_DEPTH) {
        throw new TypeError(
          `${shortPath(path)} nests deeper than ${MAX_JSON_DEPTH} levels, the most an event may`,
        )
      }
      seen.add(value)
      let out: JsonValue
      if (Array.isArray(value)) {
        const items: JsonValue[] = new Array(value.length)
        for (let i = 0; i < value.length; i++) items[i] = copy(value[i], `${path}[${i}]`, depth + 1, seen)
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
          const copied = copy(field, `${path}.${key}`, depth + 1, seen)
          // Assigning `__proto__` would set the prototype and drop the field; define it instead.
          if (key === '__proto__') {
            Object.defineProperty(fields, key, {
              value: copied,
              enumerable: true,
              writable: true,
              configurable: true,
            })
          } else {
            fields[key] = copied
          }
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

/** A path cut in the middle when long, so an error message about deep nesting stays short. */
function shortPath(path: string): string {
  return path.length <= 120 ? path : `${path.slice(0, 60)}…${path.slice(-40)}`
}

/**
 * Freezes a trusted, freshly parsed JSON value in place (no copy) and returns it. Iterative: a
 * value of any depth `JSON.parse` produced is frozen without growing the call stack.
 */
export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const item = stack.pop()
    if (typeof item !== 'object' || item === null || Object.isFrozen(item)) continue
    Object.freeze(item)
    for (const key of Object.keys(item)) stack.push((item as Record<string, unknown>)[key])
  }
  return value
}

/**
 * The frozen copy of an event's `data`, as `Session.append` stores it; throws `INVALID_EVENT`
 * naming the path when it is not plain JSON or nests too deep (see {@link MAX_JSON_DEPTH}). Callers
 * that must refuse input before they append anything (a prompt before its turn starts) check here.
 */
export function storableEventData(type: unknown, data: unknown): JsonObject {
  try {
    return freezeJsonCopy(data, 'data', 1) as JsonObject
  } catch (error) {
    throw new SessionError(
      SessionErrorCode.INVALID_EVENT,
      `event ${String(type)}: ${(error as Error).message}`,
      {
        type,
      },
    )
  }
}
