import { describe, expect, it } from 'vitest'
import { titleFromHead } from './head-title.js'

const header = `${JSON.stringify({ version: 1, id: 's', createdAt: 't', cwd: '/w' })}\n`
const line = (event: unknown) => `${JSON.stringify(event)}\n`
const userMessage = (text: string) =>
  line({ seq: 2, type: 'user/message', time: 't', data: { turn: 1, content: [{ type: 'text', text }] } })
const turnStart = line({ seq: 1, type: 'turn/start', time: 't', data: { turn: 1 } })

describe('titleFromHead', () => {
  it('derives the title from the first user message after the header', () => {
    const head = Buffer.from(header + turnStart + userMessage('refactor "the" parser\nplease'))
    expect(titleFromHead(head, header.length)).toBe('refactor "the" parser')
  })

  it('reads the start of a first prompt whose line is cut off by the window', () => {
    const full = Buffer.from(
      header + turnStart + userMessage(`why does \\u00e9 "fail"?\n${'x'.repeat(50_000)}`),
    )
    const head = full.subarray(0, 16 * 1024)
    expect(titleFromHead(head, header.length)).toBe('why does \\u00e9 "fail"?')
  })

  it('copes with a window that ends inside a UTF-8 character or an escape', () => {
    const accents = Buffer.from(header + turnStart + userMessage('é'.repeat(10)))
    const afterQuote = accents.indexOf('"text":"') + '"text":"'.length
    expect(titleFromHead(accents.subarray(0, afterQuote + 7), header.length)).toBe('ééé')
    const quoted = Buffer.from(header + turnStart + userMessage('say "hi"'))
    const backslash = quoted.indexOf('\\"')
    expect(titleFromHead(quoted.subarray(0, backslash + 1), header.length)).toBe('say')
  })

  it('gives none for an empty session or one without a prompt in the head', () => {
    expect(titleFromHead(Buffer.from(header), header.length)).toBeUndefined()
    expect(titleFromHead(Buffer.from(header + turnStart), header.length)).toBeUndefined()
  })
})
