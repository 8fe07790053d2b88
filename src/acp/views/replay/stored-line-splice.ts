import { isUtf8 } from 'node:buffer'
import { randomBytes } from 'node:crypto'
import type { SessionEvent } from '../../../session/log/events.js'
import { storedLineOf } from '../../../session/log/stored-event.js'

/** Lines shorter than this are serialized as usual: copying pays only for long strings. */
export const SPLICE_MIN_LINE_BYTES = 4096
/** Strings shorter than this are serialized as usual. */
export const SPLICE_MIN_STRING_CHARS = 1024

const QUOTE = 0x22
const BACKSLASH = 0x5c
const NEWLINE = Buffer.from('\n')

/** A literal of the stored line: the bytes from its opening quote to its closing quote, both included. */
interface Literal {
  readonly start: number
  readonly end: number
}

/**
 * The bytes of `JSON.stringify(message)` in UTF-8 followed by `\n`, where every long string of
 * `message` that is also a string of `stored` is copied from the line `stored` was parsed from
 * (its UTF-8 JSON text, while its backend lends it: `storedLineOf`) instead of being serialized
 * and encoded again. Undefined when no line is lent or no string could be copied: then the caller
 * serializes `message` itself.
 *
 * A string is copied only where the bytes are provably the ones `JSON.stringify` would write:
 * - `stored` is `JSON.parse` of the line as read (its strings are matched to the line's literals in
 *   document order; an object key that is an array index, which `JSON.parse` reorders, or a count
 *   of literals different from the count of strings and keys, e.g. a repeated key, copies nothing);
 * - the literal is valid UTF-8 (a byte sequence decoded to U+FFFD would be written differently);
 * - every escape in it is the one `JSON.stringify` writes for that character (`\"`, `\\`, `\b`,
 *   `\f`, `\n`, `\r`, `\t`, `\u00xx` in lower case for the other control characters); any other
 *   escape (`\/`, `\u0041`, an escaped surrogate) copies nothing of that string.
 */
export function splicedLine(message: unknown, stored: SessionEvent): Buffer | undefined {
  const line = storedLineOf(stored)
  if (line === undefined || line.length < SPLICE_MIN_LINE_BYTES) return undefined
  const strings = storedStrings(stored)
  if (!strings || strings.long.length === 0) return undefined
  const literals = literalsOf(line, strings.long)
  if (!literals || literals.count !== strings.count) return undefined
  const copies: Literal[] = []
  const skeleton = JSON.stringify(message, (_key, value: unknown) => {
    if (typeof value !== 'string' || value.length < SPLICE_MIN_STRING_CHARS) return value
    const at = strings.long.findIndex((s) => s.value === value)
    const literal = at === -1 ? undefined : literals.long[at]
    if (!literal) return value
    copies.push(literal)
    return `${MARKER}${copies.length - 1}`
  })
  if (copies.length === 0 || typeof skeleton !== 'string') return undefined
  const pieces: Uint8Array[] = []
  let from = 0
  for (let i = 0; i < copies.length; i++) {
    const marker = `"${SERIALIZED_MARKER}${i}"`
    const at = skeleton.indexOf(marker)
    // Exactly once: a key or another string that happens to read like a marker copies nothing.
    if (at < from || skeleton.indexOf(marker, at + 1) !== -1) return undefined
    const literal = copies[i] as Literal
    pieces.push(Buffer.from(skeleton.slice(from, at)), line.subarray(literal.start, literal.end))
    from = at + marker.length
  }
  pieces.push(Buffer.from(skeleton.slice(from)), NEWLINE)
  return Buffer.concat(pieces)
}

/** Stands in for a copied string in the skeleton: a process-wide nonce behind a NUL. */
const MARKER = `\u0000dsh-splice-${randomBytes(8).toString('hex')}-`
const SERIALIZED_MARKER = JSON.stringify(MARKER).slice(1, -1)

interface StoredStrings {
  /** Strings and object keys, in document order. */
  readonly count: number
  /** The long string values: where they stand in that order. */
  readonly long: Array<{ readonly index: number; readonly value: string }>
}

const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/

/** The strings of a parsed JSON value in the order of its text, or undefined if that order is lost. */
function storedStrings(value: unknown): StoredStrings | undefined {
  const long: StoredStrings['long'] = []
  let count = 0
  const walk = (v: unknown): boolean => {
    if (typeof v === 'string') {
      if (v.length >= SPLICE_MIN_STRING_CHARS) long.push({ index: count, value: v })
      count++
      return true
    }
    if (typeof v !== 'object' || v === null) return true
    if (Array.isArray(v)) return v.every(walk)
    for (const key of Object.keys(v)) {
      if (ARRAY_INDEX.test(key)) return false
      count++
      if (!walk((v as Record<string, unknown>)[key])) return false
    }
    return true
  }
  return walk(value) ? { count, long } : undefined
}

/**
 * Counts the string literals of `line` (valid JSON: a quote outside a string opens one) and gives
 * those at the indices of `wanted` whose bytes `JSON.stringify` would write as they are, in
 * `wanted`'s order (undefined for the others).
 */
function literalsOf(
  line: Uint8Array,
  wanted: StoredStrings['long'],
): { count: number; long: Array<Literal | undefined> } | undefined {
  const bytes = Buffer.from(line.buffer, line.byteOffset, line.length)
  const long: Array<Literal | undefined> = []
  let next = 0
  let count = 0
  let from = 0
  for (;;) {
    const open = bytes.indexOf(QUOTE, from)
    if (open === -1) break
    let close = bytes.indexOf(QUOTE, open + 1)
    while (close !== -1 && escaped(bytes, open, close)) close = bytes.indexOf(QUOTE, close + 1)
    if (close === -1) return undefined
    if (wanted[next]?.index === count) {
      long.push(canonical(bytes, open + 1, close) ? { start: open, end: close + 1 } : undefined)
      next++
    }
    count++
    from = close + 1
  }
  return { count, long }
}

/** Whether the quote at `at` is escaped: an odd run of backslashes before it, after `open`. */
function escaped(bytes: Buffer, open: number, at: number): boolean {
  let run = 0
  for (let i = at - 1; i > open && bytes[i] === BACKSLASH; i--) run++
  return run % 2 === 1
}

const SHORT_ESCAPED_CONTROLS = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d])
const U_ESCAPE = Buffer.from('\\u')
const SLASH_ESCAPE = Buffer.from('\\/')

/**
 * Whether the literal's content `[start, end)` is valid UTF-8 whose every escape is `JSON.stringify`'s
 * own. The line is valid JSON, so its escapes are `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`
 * and `\uXXXX`: only `\/` and the `\u` ones need a look (found by searching for them, not by
 * stepping through every escape).
 */
function canonical(bytes: Buffer, start: number, end: number): boolean {
  const content = bytes.subarray(start, end)
  if (!isUtf8(content)) return false
  for (let at = content.indexOf(SLASH_ESCAPE); at !== -1; at = content.indexOf(SLASH_ESCAPE, at + 2)) {
    if (escapes(content, at)) return false
  }
  for (let at = content.indexOf(U_ESCAPE); at !== -1; at = content.indexOf(U_ESCAPE, at + 2)) {
    if (escapes(content, at) && !controlEscape(content, at + 2)) return false
  }
  return true
}

/** Whether the backslash at `at` starts an escape: an even run of backslashes before it. */
function escapes(content: Buffer, at: number): boolean {
  let run = 0
  for (let i = at - 1; i >= 0 && content[i] === BACKSLASH; i--) run++
  return run % 2 === 0
}

/** Whether the 4 hex digits at `at` are `JSON.stringify`'s `\u00xx` (lower case) for a control character. */
function controlEscape(content: Buffer, at: number): boolean {
  if (content[at] !== 0x30 || content[at + 1] !== 0x30) return false
  const high = content[at + 2]
  const low = content[at + 3] as number
  if (high !== 0x30 && high !== 0x31) return false
  const lowValue = low >= 0x30 && low <= 0x39 ? low - 0x30 : low >= 0x61 && low <= 0x66 ? low - 0x61 + 10 : -1
  if (lowValue === -1) return false
  const code = (high === 0x31 ? 16 : 0) + lowValue
  return !SHORT_ESCAPED_CONTROLS.has(code)
}
