import { type ContentBlock, titleFromContent, titleFromText } from '../../session/index.js'

const NEWLINE = 0x0a
const USER_MESSAGE = '"type":"user/message"'
const TEXT_FIELD = '"text":"'
/** A first prompt's title comes from its first line; this much of the escaped text is plenty. */
const TEXT_PREFIX = 4096

/**
 * The title derived from a stored session's first prompt, read from the first bytes of its file
 * (`head`, event lines starting at `from`), the way a live session derives it. A first prompt
 * whose line does not fit in `head` (a pasted file, say) still gets a title from the start of its
 * first text block. Undefined when `head` holds no user message.
 */
export function titleFromHead(head: Buffer, from: number): string | undefined {
  let start = from
  while (start < head.length) {
    const end = head.indexOf(NEWLINE, start)
    const line = head.toString('utf8', start, end === -1 ? head.length : end)
    if (line.includes(USER_MESSAGE)) return end === -1 ? titleFromPartialLine(line) : titleFromLine(line)
    if (end === -1) return undefined
    start = end + 1
  }
  return undefined
}

function titleFromLine(line: string): string | undefined {
  try {
    const event = JSON.parse(line) as { data?: { content?: unknown } }
    const content = event.data?.content
    return Array.isArray(content) ? titleFromContent(content as ContentBlock[]) : undefined
  } catch {
    return undefined
  }
}

/** The start of the first `"text":"…"` string of a line cut short, decoded as far as it goes. */
function titleFromPartialLine(line: string): string | undefined {
  const at = line.indexOf(TEXT_FIELD)
  if (at === -1) return undefined
  // A byte window may end inside a UTF-8 sequence: the decoder left U+FFFD for it.
  let escaped = line
    .slice(at + TEXT_FIELD.length, at + TEXT_FIELD.length + TEXT_PREFIX)
    .replace(/\uFFFD+$/, '')
  const close = closingQuote(escaped)
  if (close !== -1) escaped = escaped.slice(0, close)
  for (let cut = 0; cut < 8 && escaped.length > 0; cut++) {
    try {
      return titleFromText(JSON.parse(`"${escaped}"`) as string)
    } catch {
      escaped = escaped.slice(0, -1)
    }
  }
  return undefined
}

/** Index of the first unescaped `"`, or -1. */
function closingQuote(escaped: string): number {
  for (let i = 0; i < escaped.length; i++) {
    if (escaped[i] === '\\') i++
    else if (escaped[i] === '"') return i
  }
  return -1
}
