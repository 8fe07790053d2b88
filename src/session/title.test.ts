import { describe, expect, it } from 'vitest'
import { DERIVED_TITLE_LENGTH, titleFromContent, titleFromText } from './title.js'

describe('derived titles', () => {
  it('take the first non-blank line, whitespace collapsed', () => {
    expect(titleFromText('\n  \n  fix   the\tbuild  \nsecond line')).toBe('fix the build')
  })

  it('cut long lines to the limit with an ellipsis, counting characters not UTF-16 units', () => {
    const title = titleFromText('😀'.repeat(200)) as string
    expect([...title]).toHaveLength(DERIVED_TITLE_LENGTH)
    expect(title.endsWith('…')).toBe(true)
  })

  it('come from the first text block that has text; none without text', () => {
    expect(
      titleFromContent([
        { type: 'resource_link', uri: 'file:///a', name: 'a' },
        { type: 'text', text: '   ' },
        { type: 'text', text: 'explain this' },
      ]),
    ).toBe('explain this')
    expect(titleFromContent([{ type: 'resource_link', uri: 'file:///a', name: 'a' }])).toBeUndefined()
    expect(titleFromText('')).toBeUndefined()
  })
})
