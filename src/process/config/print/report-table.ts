/** Widest value column of `dsh-acp config` (characters); a longer value wraps onto more lines. */
export const VALUE_COLUMN = 60

/**
 * Rows of `[name, value, source]` as aligned lines: names padded to one column, values to
 * the next (at most {@link VALUE_COLUMN} wide), then the source. A value wider than its column
 * wraps at spaces (a word wider than the column is cut), its further lines indented under it, so
 * the source column is never pushed out of line.
 */
export function reportLines(rows: readonly (readonly [string, string, string])[]): string[] {
  const nameWidth = Math.max(...rows.map(([name]) => name.length)) + 2
  const valueWidth = Math.min(VALUE_COLUMN, Math.max(...rows.map(([, value]) => value.length)))
  const lines: string[] = []
  for (const [name, value, from] of rows) {
    const parts = wrap(value, valueWidth)
    for (const [i, part] of parts.entries()) {
      const head = i === 0 ? name.padEnd(nameWidth) : ' '.repeat(nameWidth)
      const tail = i === 0 && from !== '' ? `${part.padEnd(valueWidth)}  ${from}` : part
      lines.push(`${head}${tail}`.trimEnd())
    }
  }
  return lines
}

/** `text` in lines of at most `width` characters, broken at spaces where it can be. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = []
  let rest = text
  while (rest.length > width) {
    const space = rest.lastIndexOf(' ', width)
    const cut = space > 0 ? space : width
    lines.push(rest.slice(0, cut))
    rest = rest.slice(space > 0 ? cut + 1 : cut)
  }
  lines.push(rest)
  return lines
}
