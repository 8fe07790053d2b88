import { isUtf8 } from 'node:buffer'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { LineSplitter } from './line-splitter.js'

type Event = { line: string; utf8: boolean } | { overflow: number }

function split(chunks: readonly Buffer[], maxLineBytes?: number, end = true): Event[] {
  const events: Event[] = []
  const splitter = new LineSplitter(
    { line: (line, utf8) => events.push({ line, utf8 }), overflow: (max) => events.push({ overflow: max }) },
    maxLineBytes,
  )
  for (const chunk of chunks) splitter.push(chunk)
  if (end) splitter.end()
  return events
}

/** Cuts `bytes` at the given offsets (sorted, deduplicated, clipped). */
function cut(bytes: Buffer, offsets: readonly number[]): Buffer[] {
  const points = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks: Buffer[] = []
  let start = 0
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.subarray(start, point))
    start = point
  }
  return chunks
}

describe('LineSplitter', () => {
  it('splits on LF only, strips one CR, skips blank lines, flushes the last line at end', () => {
    const text = 'a\r\n\n  \r\nb\u2028c\u2029d\re\nlast'
    expect(split([Buffer.from(text)])).toEqual([
      { line: 'a', utf8: true },
      { line: 'b\u2028c\u2029d\re', utf8: true },
      { line: 'last', utf8: true },
    ])
  })

  it('does not report an unterminated line before end', () => {
    expect(split([Buffer.from('{"a":1}')], undefined, false)).toEqual([])
  })

  it('flags invalid UTF-8 instead of guessing', () => {
    expect(split([Buffer.from([0x61, 0xc3, 0x0a])])).toEqual([{ line: 'a\ufffd', utf8: false }])
  })

  it('reports an over-cap line once, drops it without buffering, and goes on', () => {
    const chunks = [Buffer.from('12345'), Buffer.from('6789'), Buffer.from('0abc'), Buffer.from('\nok\n')]
    expect(split(chunks, 8)).toEqual([{ overflow: 8 }, { line: 'ok', utf8: true }])
    expect(split([Buffer.from('123456789\n12345678\n')], 8)).toEqual([
      { overflow: 8 },
      { line: '12345678', utf8: true },
    ])
    expect(split([Buffer.from('123456789')], 8)).toEqual([{ overflow: 8 }])
  })

  it('rejects a nonsensical cap', () => {
    expect(() => split([], 0)).toThrow(RangeError)
  })

  it('yields the same lines however the bytes are chunked (UTF-8 of any width)', () => {
    const lineArb = fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => s.replace(/[\n\r]/g, ''))
    fc.assert(
      fc.property(
        fc.array(lineArb, { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.boolean(),
        (lines, offsets, crlf) => {
          const bytes = Buffer.from(lines.map((l) => `${l}${crlf ? '\r\n' : '\n'}`).join(''))
          const expected = lines.filter((l) => !/^[ \t]*$/.test(l)).map((line) => ({ line, utf8: true }))
          expect(split(cut(bytes, offsets))).toEqual(expected)
        },
      ),
    )
  })

  it('reports any bytes, however chunked and capped, as the line-by-line model says', () => {
    // Pieces that exercise every rule: terminators, blanks, multi-byte and invalid UTF-8, U+FFFD.
    const piece = fc.constantFrom(
      ...['\n', '\r', '\r\n', ' ', '\t', 'a', '{"x":1}', 'é', '€', '😀', '\u2028', '\ufffd'].map((t) =>
        Buffer.from(t),
      ),
      Buffer.from([0xc3]),
      Buffer.from([0xff]),
      Buffer.from([0xe2, 0x82]),
    )
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.integer({ min: 1, max: 24 }),
        (pieces, offsets, cap) => {
          const bytes = Buffer.concat(pieces)
          expect(split(cut(bytes, offsets), cap)).toEqual(model(bytes, cap))
        },
      ),
    )
  })
})

/** The contract, one line at a time: split on LF, strip one CR, cap by bytes, skip blanks. */
function model(bytes: Buffer, cap: number): Event[] {
  const events: Event[] = []
  let start = 0
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start)
    const next = end === -1 ? bytes.length : end + 1
    if (end === -1) end = bytes.length
    let line = bytes.subarray(start, end)
    if (line.length > 0 && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1)
    if (line.length > cap) events.push({ overflow: cap })
    else if (!/^[ \t\r]*$/.test(line.toString('latin1'))) {
      events.push({ line: line.toString('utf8'), utf8: isUtf8(line) })
    }
    start = next
  }
  return events
}
