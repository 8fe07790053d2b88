import { readFileSync } from 'node:fs'
import { RE2JS } from 're2js'
import { isObject } from '../../lib/is.js'

/**
 * A user normalization rule (`dsh-acp replay --rules FILE`). A rules file is JSON:
 * `{ "rules": [ RULE, ... ] }`, each RULE one of
 *
 * - `{ "ignore": POINTER }`: remove the value at POINTER before comparing;
 * - `{ "rewrite": POINTER, "to": VALUE }`: set the value at POINTER (where one is present) to VALUE;
 * - `{ "pattern": REGEX, "replace": TEXT }`: in every string value (or only under `"at": POINTER`),
 *   replace each match of REGEX with TEXT (`$1`, `$<name>`, `$&` and `$$` work as in JavaScript).
 *   REGEX is JavaScript syntax without backreferences and lookaround, matched by RE2 (re2js) in
 *   time linear in the string, so no pattern can hang a replay.
 *
 * POINTER is a JSON Pointer (RFC 6901) into the whole JSON-RPC message, e.g.
 * `/params/update/content/text` or `/result/_meta`; a segment `*` matches any key or index.
 * Any rule may add `"method": NAME` to apply only to messages of that method (a response counts as
 * its request's method) and `"dir": "in"|"out"`.
 */
export type UserRule =
  | { readonly ignore: string; readonly method?: string; readonly dir?: 'in' | 'out' }
  | { readonly rewrite: string; readonly to: unknown; readonly method?: string; readonly dir?: 'in' | 'out' }
  | {
      readonly pattern: string
      readonly replace: string
      readonly at?: string
      readonly method?: string
      readonly dir?: 'in' | 'out'
    }

/** A rule ready to apply. */
export interface CompiledRule {
  readonly source: UserRule
  apply(message: unknown, method: string | undefined, dir: 'in' | 'out'): unknown
}

/** A rules file that cannot be used; the message names the file and the rule. */
export class RulesError extends Error {
  override name = 'RulesError'
}

/** Parses a JSON Pointer into its segments (`~1` is `/`, `~0` is `~`). */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return []
  if (!pointer.startsWith('/'))
    throw new RulesError(`${JSON.stringify(pointer)} is not a JSON pointer (it must start with /)`)
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
}

/** Calls `visit(parent, key)` for every place matching `segments` (with `*` wildcards). */
function forEachMatch(
  value: unknown,
  segments: readonly string[],
  visit: (parent: Record<string, unknown> | unknown[], key: string) => void,
): void {
  if (segments.length === 0 || typeof value !== 'object' || value === null) return
  const [head, ...rest] = segments as [string, ...string[]]
  const container = value as Record<string, unknown>
  const keys = head === '*' ? Object.keys(container) : Object.hasOwn(container, head) ? [head] : []
  // Backwards over arrays, so removing an element does not shift the ones still to visit.
  if (Array.isArray(value)) keys.reverse()
  for (const key of keys) {
    if (rest.length === 0) visit(container, key)
    else forEachMatch(container[key], rest, visit)
  }
}

function mapStrings(value: unknown, map: (s: string) => string): unknown {
  if (typeof value === 'string') return map(value)
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, map))
  if (isObject(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, map)]))
  return value
}

/** Compiles user rules; throws {@link RulesError} for a malformed rule, naming its index. */
export function compileRules(rules: readonly unknown[], where = 'rules'): CompiledRule[] {
  return rules.map((rule, index) => {
    const name = `${where}[${index}]`
    if (!isObject(rule)) throw new RulesError(`${name}: a rule must be an object`)
    const { method, dir } = rule
    if (method !== undefined && typeof method !== 'string')
      throw new RulesError(`${name}: method must be a string`)
    if (dir !== undefined && dir !== 'in' && dir !== 'out')
      throw new RulesError(`${name}: dir must be "in" or "out"`)
    const applies = (m: string | undefined, d: 'in' | 'out') =>
      (method === undefined || method === m) && (dir === undefined || dir === d)
    const forms = ['ignore', 'rewrite', 'pattern'].filter((key) => Object.hasOwn(rule, key))
    if (forms.length !== 1) throw new RulesError(`${name}: needs exactly one of ignore, rewrite, pattern`)
    const allowed = new Set([
      'method',
      'dir',
      ...(forms[0] === 'rewrite'
        ? ['rewrite', 'to']
        : forms[0] === 'pattern'
          ? ['pattern', 'replace', 'at']
          : ['ignore']),
    ])
    const unknown = Object.keys(rule).find((key) => !allowed.has(key))
    if (unknown !== undefined) throw new RulesError(`${name}: unknown field ${JSON.stringify(unknown)}`)
    const source = rule as UserRule
    if (typeof rule.ignore === 'string' || typeof rule.rewrite === 'string') {
      const pointer = (rule.ignore ?? rule.rewrite) as string
      const segments = parsePointer(pointer)
      if (segments.length === 0)
        throw new RulesError(`${name}: the pointer must name a place inside the message`)
      if (forms[0] === 'rewrite' && !Object.hasOwn(rule, 'to'))
        throw new RulesError(`${name}: rewrite needs "to"`)
      const ignore = forms[0] === 'ignore'
      return {
        source,
        apply(message, m, d) {
          if (!applies(m, d)) return message
          forEachMatch(message, segments, (parent, key) => {
            if (!ignore) (parent as Record<string, unknown>)[key] = structuredClone(rule.to)
            else if (Array.isArray(parent)) parent.splice(Number(key), 1)
            else delete parent[key]
          })
          return message
        },
      }
    }
    if (typeof rule.pattern === 'string') {
      if (typeof rule.replace !== 'string')
        throw new RulesError(`${name}: pattern needs "replace" (a string)`)
      let regex: RE2JS
      try {
        regex = RE2JS.compile(RE2JS.translateRegExp(rule.pattern))
      } catch (error) {
        const why = (error as Error).message.replace(/^error parsing regexp: /, '')
        throw new RulesError(`${name}: bad pattern (RE2 syntax: no backreferences or lookaround): ${why}`)
      }
      const replace = rule.replace
      const at = rule.at === undefined ? undefined : parsePointer(String(rule.at))
      const map = (s: string) => (regex.test(s) ? regex.matcher(s).replaceAll(replace) : s)
      return {
        source,
        apply(message, m, d) {
          if (!applies(m, d)) return message
          if (at === undefined || at.length === 0) return mapStrings(message, map)
          forEachMatch(message, at, (parent, key) => {
            const container = parent as Record<string, unknown>
            container[key] = mapStrings(container[key], map)
          })
          return message
        },
      }
    }
    throw new RulesError(`${name}: ${forms[0]} must be a string`)
  })
}

/** Reads and compiles a rules file. Throws {@link RulesError} naming the file. */
export function readRulesFile(file: string): CompiledRule[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new RulesError(`${file}: ${(error as Error).message}`)
  }
  if (!isObject(parsed) || !Array.isArray(parsed.rules))
    throw new RulesError(`${file}: expected {"rules": [...]}`)
  return compileRules(parsed.rules, file)
}
