import { type CompiledRule, compileRules } from './rules.js'

/**
 * A placeholder of `dsh-acp replay --set NAME=VALUE`. A transcript may hold `<NAME>` where the
 * recorded run had a text that belongs to one machine, such as the project directory a session was
 * opened in. The replay puts VALUE in its place in every string of a client message before it is
 * sent (so the agent gets a real path), and turns VALUE back into `<NAME>` in every string of
 * every message, both sides, before comparing (and in what `--update` writes).
 */
export interface Placeholder {
  /** Lower-case letters, digits and `-`, starting with a letter (`work`, `project-dir`). */
  readonly name: string
  /** Not empty. */
  readonly value: string
}

const NAME = /^[a-z][a-z0-9-]*$/

/** Parses `NAME=VALUE`, or says in `problem` why it is not one. */
export function parsePlaceholder(text: string): Placeholder | { problem: string } {
  const at = text.indexOf('=')
  if (at < 0) return { problem: `expected NAME=VALUE, got ${JSON.stringify(text)}` }
  const name = text.slice(0, at)
  const value = text.slice(at + 1)
  if (!NAME.test(name))
    return { problem: `the name ${JSON.stringify(name)} must be lower-case letters, digits and -` }
  if (value === '') return { problem: `the value of ${name} is empty` }
  return { name, value }
}

/** Longest value first, so a value inside another (a store inside a work directory) wins. */
const byValueLength = (placeholders: readonly Placeholder[]) =>
  [...placeholders].sort((a, b) => b.value.length - a.value.length)

/** A copy of `value` with every `<NAME>` inside its strings replaced by the placeholder's value. */
export function fillPlaceholders(value: unknown, placeholders: readonly Placeholder[]): unknown {
  if (placeholders.length === 0) return value
  return mapStrings(value, (text) => {
    if (!text.includes('<')) return text
    let result = text
    for (const { name, value: real } of placeholders) result = result.replaceAll(`<${name}>`, real)
    return result
  })
}

/**
 * The comparison half, as normalization rules (the replay applies them before the user's, and to
 * what `--update` writes): each value becomes `<NAME>` again, the longest value first.
 */
export function placeholderRules(placeholders: readonly Placeholder[]): CompiledRule[] {
  return compileRules(
    byValueLength(placeholders).map(({ name, value }) => ({
      pattern: value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      replace: `<${name}>`,
    })),
    '--set',
  )
}

function mapStrings(value: unknown, map: (s: string) => string): unknown {
  if (typeof value === 'string') return map(value)
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, map))
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, map)]))
  return value
}
