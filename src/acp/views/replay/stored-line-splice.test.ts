import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type SessionEvent, withStoredLine } from '../../../session/index.js'
import { SPLICE_MIN_LINE_BYTES, splicedLine } from './stored-line-splice.js'

/** {@link splicedLine} while a backend lends `line` as the text `stored` was parsed from. */
const spliceFrom = (message: unknown, stored: object, line: Uint8Array) =>
  withStoredLine(stored as SessionEvent, line, () => splicedLine(message, stored as SessionEvent))

/** What the writer writes for `message` when it serializes it itself. */
const wire = (message: unknown) => Buffer.from(`${JSON.stringify(message)}\n`)

/** A long string: `piece` repeated past the thresholds. */
const long = (piece: string) => piece.repeat(Math.ceil(SPLICE_MIN_LINE_BYTES / Math.max(1, piece.length)))

const text = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    'lorem ipsum ',
    'a"b\\c\n\t\b\f\r',
    '\u0000\u001f\u007f',
    '\u2028\u2029',
    'é😀',
    '\ud800x',
    'x\udfff',
    '\\u0041 \\/ \\\\u00e9 /',
  ),
)

/** An event as a store writes it, with some long strings in its data. */
const event = fc
  .record({
    seq: fc.nat({ max: 1000 }),
    content: text.map(long),
    thought: fc.option(text.map(long), { nil: undefined }),
    small: fc.array(text, { maxLength: 3 }),
    extra: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  })
  .map(({ seq, content, thought, small, extra }) => ({
    seq,
    type: 'assistant/message',
    time: '2026-01-01T00:00:00.000Z',
    data: { ...extra, turn: 1, step: 1, content, ...(thought !== undefined && { thought }), small },
  }))

/** The update a replay would send for it. */
function notification(stored: { seq: number; data: Record<string, unknown> }, pick: 'content' | 'thought') {
  return {
    jsonrpc: '2.0',
    method: 'session/update',
    params: {
      sessionId: 's"1',
      update: {
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: stored.data[pick] ?? stored.data.content },
        messageId: `m${stored.seq}`,
      },
      _meta: { dsh: { seq: stored.seq } },
    },
  }
}

/** Ways the same event may be stored other than as `JSON.stringify` writes it. */
const rewrite = fc.constantFrom(
  (line: string) => line,
  (line: string) => line.replaceAll('lorem', '\\u006corem'),
  (line: string) => line.replaceAll(/\\u001([a-f])/g, (_m, hex: string) => `\\u001${hex.toUpperCase()}`),
  (line: string) => line.replaceAll('/', '\\/'),
  (line: string) => line.replaceAll('\\n', '\\u000a'),
  (line: string) => line.replaceAll('é', '\\u00e9'),
  (line: string) => line.replaceAll(':', ' : ').replaceAll(',', ' ,\t'),
  (line: string) => line.replace('{"seq"', '{"seq":0,"seq"'),
  (line: string) => line.replace('"turn":1', '"turn":1,"turn":"again"'),
)

describe('splicedLine', () => {
  it('gives exactly the bytes the writer would write, however the stored line was written', () => {
    fc.assert(
      fc.property(event, rewrite, fc.constantFrom('content', 'thought'), (stored, change, pick) => {
        const line = Buffer.from(change(JSON.stringify(stored)))
        let parsed: { seq: number; data: Record<string, unknown> }
        try {
          parsed = JSON.parse(line.toString('utf8'))
        } catch {
          return // the rewrite reached into a string and made it invalid JSON
        }
        const message = notification(parsed, pick)
        const spliced = spliceFrom(message, parsed, line)
        if (spliced) expect(spliced.equals(wire(message))).toBe(true)
      }),
      { numRuns: 400 },
    )
  })

  it('copies the long strings of a line as JSON.stringify wrote it, escapes and all', () => {
    for (const piece of ['lorem ipsum ', 'a"b\\c\n\t', 'é😀 \u2028', '\u0001\u001f\u007f', '\\u0041 \\/ /']) {
      const stored = {
        seq: 4,
        type: 'assistant/message',
        time: 't',
        data: { turn: 1, step: 1, content: long(piece) },
      }
      const line = Buffer.from(JSON.stringify(stored))
      const message = notification(JSON.parse(line.toString('utf8')), 'content')
      const spliced = spliceFrom(message, JSON.parse(line.toString('utf8')), line)
      expect(spliced?.equals(wire(message))).toBe(true)
    }
  })

  it('copies nothing it cannot show equal: bad UTF-8, foreign escapes, reordered or repeated keys', () => {
    const data = { turn: 1, step: 1, content: long('lorem ipsum ') }
    const stored = { seq: 4, type: 'assistant/message', time: 't', data }
    const cases = [
      Buffer.concat([
        Buffer.from(JSON.stringify(stored).slice(0, -3)),
        Buffer.from([0xff]),
        Buffer.from('"}}'),
      ]),
      Buffer.from(JSON.stringify(stored).replace('lorem', '\\u006Corem')),
      Buffer.from(JSON.stringify(stored).replace('lorem', 'lor\\/em')),
      Buffer.from(JSON.stringify({ ...stored, data: { ...data, 7: 'index key' } })),
      Buffer.from(JSON.stringify(stored).replace('{"seq":4', '{"seq":4,"seq":4')),
      Buffer.from(JSON.stringify({ ...stored, data: { ...data, content: `${long('x')}\ud800` } })),
    ]
    for (const line of cases) {
      const parsed = JSON.parse(line.toString('utf8'))
      const message = notification(parsed, 'content')
      expect(spliceFrom(message, parsed, line)).toBeUndefined()
    }
  })

  it('copies nothing from a line that is short or a message that shares no long string with it', () => {
    const stored = { seq: 1, type: 'context/note', time: 't', data: { text: 'short' } }
    const line = Buffer.from(JSON.stringify(stored))
    expect(spliceFrom(notification(stored as never, 'content'), stored, line)).toBeUndefined()
    const big = { ...stored, data: { text: long('y') } }
    const other = { jsonrpc: '2.0', method: 'x', params: { text: long('z') } }
    expect(spliceFrom(other, big, Buffer.from(JSON.stringify(big)))).toBeUndefined()
  })

  it('finds the line only while its backend lends it, and only for the event parsed from it', () => {
    const stored = {
      seq: 4,
      type: 'assistant/message',
      time: 't',
      data: { turn: 1, step: 1, content: long('x') },
    }
    const line = Buffer.from(JSON.stringify(stored))
    const event = JSON.parse(line.toString('utf8')) as SessionEvent
    const message = notification(event as never, 'content')
    const lent = withStoredLine(event, line, () => ({
      own: splicedLine(message, event),
      other: splicedLine(message, { ...event }),
    }))
    expect(lent.own?.equals(wire(message))).toBe(true)
    expect(lent.other).toBeUndefined()
    expect(splicedLine(message, event)).toBeUndefined()
  })
})
