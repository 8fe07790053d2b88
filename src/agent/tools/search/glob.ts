import { RE2JS } from 're2js'
import { ToolFailure } from '../tool.js'

/** Longest glob or regular expression a search accepts. */
export const MAX_PATTERN_LENGTH = 4096
/** Deepest `{...}` nesting a glob may have. */
const MAX_BRACE_DEPTH = 16

/**
 * A matcher for a glob against whole relative paths (posix separators), compiled to RE2 so a
 * match takes time linear in the path whatever the glob. Syntax: `*` any characters but `/`;
 * `**` as a whole segment any number of segments (`**` /-separated alone, at the start, or at the
 * end); `?` one character but `/`; `[abc]`, `[a-z]`, `[!a]` / `[^a]` one character of (not of) a
 * set; `{a,b}` alternatives (nestable); `\` makes the next character literal. Names starting
 * with `.` match like any other. Throws {@link ToolFailure} for a glob that is too long or
 * malformed.
 */
export function compileGlob(glob: string): (relative: string) => boolean {
  if (glob.length > MAX_PATTERN_LENGTH)
    throw new ToolFailure(`the glob is longer than ${MAX_PATTERN_LENGTH} characters`)
  const source = new GlobTranslator(glob).translate()
  let regex: RE2JS
  try {
    regex = RE2JS.compile(`^(?:${source})$`, RE2JS.DOTALL)
  } catch (error) {
    throw new ToolFailure(`invalid glob ${JSON.stringify(glob)}: ${(error as Error).message}`)
  }
  return (relative) => regex.test(relative)
}

/** Characters that are literal in a glob but special in RE2 (outside a class). */
const REGEX_SPECIAL = /[\\^$.|?*+()[\]{}]/

function literal(char: string): string {
  return REGEX_SPECIAL.test(char) ? `\\${char}` : char
}

/** Inside a class: letters and digits as they are, anything else escaped (RE2 allows `\` + punctuation). */
function classChar(char: string): string {
  return /[\p{L}\p{N}]/u.test(char) ? char : /[\x21-\x7e]/.test(char) ? `\\${char}` : char
}

class GlobTranslator {
  private index = 0

  constructor(private readonly glob: string) {}

  translate(): string {
    return this.sequence(0)
  }

  /** Translates up to the end, or in braces up to the `,` or `}` that ends the alternative. */
  private sequence(depth: number): string {
    let out = ''
    const { glob } = this
    while (this.index < glob.length) {
      const char = glob[this.index] as string
      if (depth > 0 && (char === ',' || char === '}')) break
      if (char === '*') out += this.star(depth)
      else if (char === '?') {
        out += '[^/]'
        this.index++
      } else if (char === '[') out += this.charClass()
      else if (char === '{') out += this.braces(depth)
      else if (char === '\\' && this.index + 1 < glob.length) {
        out += literal(glob[this.index + 1] as string)
        this.index += 2
      } else {
        out += literal(char)
        this.index++
      }
    }
    return out
  }

  private star(depth: number): string {
    const { glob } = this
    const start = this.index
    while (glob[this.index] === '*') this.index++
    const before = start === 0 ? '/' : glob[start - 1]
    const after = this.index === glob.length ? '' : glob[this.index]
    const segmentStart = before === '/' || (depth > 0 && (before === '{' || before === ','))
    const segmentEnd = after === '' || after === '/' || (depth > 0 && (after === ',' || after === '}'))
    if (this.index - start < 2 || !segmentStart || !segmentEnd) return '[^/]*'
    if (after === '/') {
      this.index++
      return '(?:[^/]*/)*'
    }
    return '.*'
  }

  private charClass(): string {
    const { glob } = this
    let i = this.index + 1
    const negated = glob[i] === '!' || glob[i] === '^'
    if (negated) i++
    let body = ''
    let first = true
    while (i < glob.length && (glob[i] !== ']' || first)) {
      let char = glob[i] as string
      if (char === '\\' && i + 1 < glob.length) {
        i++
        char = glob[i] as string
        body += classChar(char)
      } else body += char === '-' && !first && glob[i + 1] !== ']' ? '-' : classChar(char)
      first = false
      i++
    }
    if (i >= glob.length) {
      this.index++
      return literal('[')
    }
    this.index = i + 1
    return negated ? `[^/${body}]` : `[${body}]`
  }

  private braces(depth: number): string {
    if (depth >= MAX_BRACE_DEPTH)
      throw new ToolFailure(`the glob nests {...} deeper than ${MAX_BRACE_DEPTH} levels`)
    const open = this.index
    this.index++
    const alternatives: string[] = []
    for (;;) {
      alternatives.push(this.sequence(depth + 1))
      const stop = this.glob[this.index]
      if (stop === ',') {
        this.index++
        continue
      }
      if (stop === '}' && alternatives.length > 1) {
        this.index++
        return `(?:${alternatives.join('|')})`
      }
      // `{a}` or an unclosed `{`: the brace is a literal character.
      this.index = open + 1
      return literal('{')
    }
  }
}
