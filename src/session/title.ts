import type { ContentBlock } from './log/events.js'

/** Longest title derived from a prompt, in characters (an ellipsis marks a cut). */
export const DERIVED_TITLE_LENGTH = 80

/**
 * A title from the text of a first prompt: its first non-blank line, whitespace collapsed, cut to
 * {@link DERIVED_TITLE_LENGTH} characters. Undefined when there is no text.
 */
export function titleFromText(text: string): string | undefined {
  for (const line of text.split('\n')) {
    const collapsed = line.replace(/\s+/g, ' ').trim()
    if (collapsed === '') continue
    const chars = [...collapsed]
    return chars.length > DERIVED_TITLE_LENGTH
      ? `${chars.slice(0, DERIVED_TITLE_LENGTH - 1).join('')}…`
      : collapsed
  }
  return undefined
}

/** Longest title a user sets (`/title`, `session/set_title`), in characters. */
export const MAX_TITLE_LENGTH = 200

/**
 * A title a user set, as it is stored: whitespace collapsed, trimmed, cut to
 * {@link MAX_TITLE_LENGTH} characters. Empty when nothing is left.
 */
export function normalizeTitle(text: string): string {
  return [...text.replace(/\s+/g, ' ').trim()].slice(0, MAX_TITLE_LENGTH).join('')
}

/**
 * A fork child's own title: its parent's, marked as a fork. A fork of a fork keeps the mark once
 * ("x (fork)", not "x (fork) (fork)"): siblings share their title anyway, so a count would not
 * tell them apart, and the lineage is in the listing's `parentSession`.
 */
export function forkTitle(parentTitle: string | undefined): string | undefined {
  if (parentTitle === undefined) return undefined
  return parentTitle.endsWith(FORK_MARK) ? parentTitle : `${parentTitle}${FORK_MARK}`
}

const FORK_MARK = ' (fork)'

/** A title from a prompt's content: the first text block that yields one. */
export function titleFromContent(content: readonly ContentBlock[]): string | undefined {
  for (const block of content) {
    if (block.type === 'text' && typeof block.text === 'string') {
      const title = titleFromText(block.text)
      if (title !== undefined) return title
    }
  }
  return undefined
}
