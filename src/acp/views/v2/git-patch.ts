/** Lines of unchanged context around a hunk, as `git diff` shows by default. */
const CONTEXT = 3

/**
 * A `git diff`-style patch of one file going from `oldText` (null: the file is new) to `newText`:
 * one hunk spanning the changed lines (between the longest common prefix and suffix of lines),
 * with up to three lines of context either side. Empty when nothing changed.
 */
export function gitPatch(path: string, oldText: string | null | undefined, newText: string): string {
  const name = path.replace(/^\/+/, '')
  const added = oldText === null || oldText === undefined
  const before = added ? [] : splitLines(oldText)
  const after = splitLines(newText)
  let head = 0
  while (head < before.length && head < after.length && before[head] === after[head]) head++
  let tail = 0
  while (
    tail < before.length - head &&
    tail < after.length - head &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  )
    tail++
  if (!added && head === before.length && head === after.length) return ''
  const start = Math.max(0, head - CONTEXT)
  const oldEnd = Math.min(before.length, before.length - tail + CONTEXT)
  const newEnd = Math.min(after.length, after.length - tail + CONTEXT)
  const lines = [
    `diff --git a/${name} b/${name}`,
    ...(added ? ['new file mode 100644', '--- /dev/null'] : [`--- a/${name}`]),
    `+++ b/${name}`,
    `@@ -${range(start, oldEnd - start)} +${range(start, newEnd - start)} @@`,
    ...before.slice(start, head).map((line) => ` ${line}`),
    ...before.slice(head, before.length - tail).map((line) => `-${line}`),
    ...after.slice(head, after.length - tail).map((line) => `+${line}`),
    ...after.slice(after.length - tail, newEnd).map((line) => ` ${line}`),
  ]
  return `${lines.join('\n')}\n`
}

/** A unified diff range: `start,count` (1-based; `0,0` for an empty side). */
function range(start: number, count: number): string {
  if (count === 0) return `${start},0`
  return count === 1 ? `${start + 1}` : `${start + 1},${count}`
}

/** The lines of a text, without their ends (a last line without `\n` counts as a line). */
function splitLines(text: string): string[] {
  if (text === '') return []
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}
