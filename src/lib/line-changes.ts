import { align } from './align.js'

/** Lines added and removed going from one content of a file to another. */
export interface LineChanges {
  readonly insertions: number
  readonly deletions: number
}

/** The lines of `bytes` (UTF-8; null, no file: none); a last line without a newline counts. */
function linesOf(bytes: Buffer | null): string[] {
  if (bytes === null || bytes.length === 0) return []
  const lines = bytes.toString('utf8').split('\n')
  if (lines.at(-1) === '') lines.pop()
  return lines
}

/**
 * The line diff from `before` to `after` (null: no file), counted as `git diff --stat` counts it:
 * lines only in `after` are insertions, lines only in `before` deletions.
 */
export function lineChanges(before: Buffer | null, after: Buffer | null): LineChanges {
  let insertions = 0
  let deletions = 0
  for (const step of align(linesOf(before), linesOf(after))) {
    if (step.op === 'insert') insertions++
    else if (step.op === 'delete') deletions++
  }
  return { insertions, deletions }
}
