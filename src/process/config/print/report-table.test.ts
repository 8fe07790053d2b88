import { describe, expect, it } from 'vitest'
import { reportLines, VALUE_COLUMN } from './report-table.js'

describe('dsh-acp config: the report table', () => {
  it('wraps a value wider than its column under itself; the source column stays in line', () => {
    const long = `node ${'/very/long/path/to/a/server '.repeat(4)}--flag`
    const word = 'x'.repeat(VALUE_COLUMN + 5)
    const lines = reportLines([
      ['model', 'deepseek-chat', 'user file'],
      ['  files', long, 'project file'],
      ['  one', word, ''],
    ])
    const sourceAt = (lines[0] as string).indexOf('user file')
    const valueAt = (lines[0] as string).indexOf('deepseek-chat')
    expect((lines[1] as string).indexOf('project file')).toBe(sourceAt)
    for (const line of lines) {
      const value = line.slice(valueAt).replace(/ {2}(user|project) file$/, '')
      expect(value.length).toBeLessThanOrEqual(VALUE_COLUMN)
    }
    const continued = lines.filter((line) => line.startsWith(' '.repeat(valueAt)))
    expect(continued.length).toBeGreaterThan(1)
    expect(lines.map((l) => l.slice(valueAt).replace(/ +(user|project) file$/, '')).join(' ')).toContain(
      long.split(' ').slice(-2).join(' '),
    )
  })
})
