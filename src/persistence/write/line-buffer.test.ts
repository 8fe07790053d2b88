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
    // Several buffers share one arena: their lines interleave in any order, and a take of one must
    // hold exactly its own lines, whatever the others added before, between or after.
    const step = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record({ buffer: fc.nat({ max: 2 }), add: line.map((l) => l.replaceAll('\n', ' ')) }),
      },
      { weight: 1, arbitrary: fc.record({ buffer: fc.nat({ max: 2 }) }) },
    )
    fc.assert(
      fc.property(fc.array(step, { maxLength: 120 }), (steps) => {
        const buffers = [new LineBuffer(), new LineBuffer(), new LineBuffer()]
        const pending: string[][] = [[], [], []]
        const taken: { pieces: readonly Buffer[]; copies: Buffer[] }[] = []
        const take = (i: number) => {
          const buffer = buffers[i] as LineBuffer
          const lines = pending[i] as string[]
          expect(buffer.isEmpty).toBe(lines.length === 0)
          const { pieces, lengths, bytes } = buffer.take()
          const expected = Buffer.from(lines.map((l) => `${l}\n`).join(''))
          expect(Buffer.concat(pieces).equals(expected)).toBe(true)
          expect(pieces.every((piece) => piece.length > 0)).toBe(true)
          expect(lengths).toEqual(lines.map((l) => Buffer.byteLength(l) + 1))
          expect(bytes).toBe(expected.length)
          taken.push({ pieces, copies: pieces.map((piece) => Buffer.from(piece)) })
          expect(buffer.isEmpty).toBe(true)
          pending[i] = []
        }
        for (const s of steps) {
          if ('add' in s) {
            ;(buffers[s.buffer] as LineBuffer).add(s.add)
            ;(pending[s.buffer] as string[]).push(s.add)
          } else take(s.buffer)
        }
        for (let i = 0; i < buffers.length; i++) take(i)
        for (const { pieces, copies } of taken) {
          expect(pieces.every((piece, i) => piece.equals(copies[i] as Buffer))).toBe(true)
        }
      }),
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
