import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { LineBuffer } from './line-buffer.js'

const line = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.nat({ max: 400_000 }).map((n) => 'é'.repeat(n % 7 === 0 ? n : n % 5000)),
)

describe('LineBuffer', () => {
  it('takes exactly the lines added, each ended by \\n, with their byte lengths; taken bytes stay intact', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.array(
            line.map((l) => l.replaceAll('\n', ' ')),
            { maxLength: 40 },
          ),
          { maxLength: 6 },
        ),
        (batches) => {
          const buffer = new LineBuffer()
          const taken: { pieces: readonly Buffer[]; copies: Buffer[] }[] = []
          for (const lines of batches) {
            for (const l of lines) buffer.add(l)
            expect(buffer.isEmpty).toBe(lines.length === 0)
            const { pieces, lengths } = buffer.take()
            const expected = Buffer.from(lines.map((l) => `${l}\n`).join(''))
            expect(Buffer.concat(pieces).equals(expected)).toBe(true)
            expect(pieces.every((piece) => piece.length > 0)).toBe(true)
            expect(lengths).toEqual(lines.map((l) => Buffer.byteLength(l) + 1))
            taken.push({ pieces, copies: pieces.map((piece) => Buffer.from(piece)) })
            expect(buffer.isEmpty).toBe(true)
          }
          for (const { pieces, copies } of taken) {
            expect(pieces.every((piece, i) => piece.equals(copies[i] as Buffer))).toBe(true)
          }
        },
      ),
      { numRuns: 150 },
    )
  })

  it('clear drops what was not taken', () => {
    const buffer = new LineBuffer()
    buffer.add('a')
    buffer.clear()
    buffer.add('b')
    expect(Buffer.concat(buffer.take().pieces).toString()).toBe('b\n')
  })
})
