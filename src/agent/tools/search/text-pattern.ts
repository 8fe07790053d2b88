import { RE2JS } from 're2js'
import { ToolFailure } from '../tool.js'
import { MAX_PATTERN_LENGTH } from './glob.js'

/**
 * Most work one line's match may cost, in RE2 program instructions times line characters: with
 * the engine's slowest path (a few nanoseconds per unit) a line stays well under a second. Lines
 * over it are not searched, and the result says how many.
 */
export const MATCH_BUDGET = 50_000_000

/** A compiled `search_text` pattern. */
export interface TextPattern {
  /** Whether the pattern matches somewhere in `line` (one line, without its `\n`). */
  test(line: string): boolean
  /** Whether `line` is short enough for this pattern's {@link MATCH_BUDGET}. */
  affordable(line: string): boolean
}

/**
 * Compiles a model-supplied regular expression with RE2 (re2js), which matches in time linear in
 * the input whatever the pattern: the syntax of JavaScript's RegExp (and RE2's), but without
 * backreferences and lookaround. JavaScript-only forms (`(?<name>...)`, `\u{...}`, `\uXXXX`, `\cX`)
 * are accepted. Throws {@link ToolFailure} with what to change for a pattern RE2 refuses.
 */
export function compileTextPattern(pattern: string, ignoreCase: boolean): TextPattern {
  if (pattern.length > MAX_PATTERN_LENGTH)
    throw new ToolFailure(`the pattern is longer than ${MAX_PATTERN_LENGTH} characters`)
  if (/\\k<|\\[1-9]/.test(pattern.replace(/\\\\/g, '')))
    throw new ToolFailure(unsupported('backreferences (\\1, \\k<name>)'))
  let regex: RE2JS
  try {
    regex = RE2JS.compile(RE2JS.translateRegExp(pattern), ignoreCase ? RE2JS.CASE_INSENSITIVE : 0)
  } catch (error) {
    const message = (error as Error).message.replace(/^error parsing regexp: /, '')
    if (/\(\?[=!]|\(\?<[=!]/.test(pattern)) throw new ToolFailure(unsupported('lookahead and lookbehind'))
    throw new ToolFailure(`invalid regular expression: ${message}`)
  }
  const size = Math.max(1, regex.programSize())
  return {
    test: (line) => regex.test(line),
    affordable: (line) => line.length * size <= MATCH_BUDGET,
  }
}

function unsupported(what: string): string {
  return (
    `invalid regular expression: ${what} are not supported (patterns run on RE2, which matches in ` +
    'linear time); rewrite the pattern without them, e.g. search for the simpler part and read the file'
  )
}
