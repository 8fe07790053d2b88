import { describe, expect, it } from 'vitest'
import type { FileReader } from '../fs/file-io.js'
import { TAIL_COST_WINDOW, tailCost } from './tail-cost.js'

function reader(text: string): { file: FileReader; size: number } {
  const bytes = Buffer.from(text)
  const file: FileReader = {
    read: async (buffer, offset, length, position) =>
      bytes.copy(buffer, offset, position, Math.min(bytes.length, position + length)),
  }
  return { file, size: bytes.length }
}

const line = (seq: number, type: string, data: object) =>
  `${JSON.stringify({ seq, type, time: '2026-01-01T00:00:00.000Z', data })}\n`
const end = (seq: number, cost?: object) =>
  line(seq, 'turn/end', { turn: 1, reason: 'completed', ...(cost && { cost }) })

describe('tailCost', () => {
  it("reads the last turn/end's total, past standalone events after it", async () => {
    const { file, size } = reader(
      end(1, { amount: 1, currency: 'USD' }) +
        end(2, { amount: 3, currency: 'USD' }) +
        line(3, 'mcp:connected', { server: 's', tools: [] }),
    )
    expect(await tailCost(file, 0, size, 0)).toEqual({ amount: 3, currency: 'USD' })
  })

  it("says nothing for an inherited total (a fork child's seed), a turn/end without one, or none near the end", async () => {
    const inherited = reader(end(1, { amount: 1, currency: 'USD' }))
    expect(await tailCost(inherited.file, 0, inherited.size, 1)).toBeUndefined()
    const unpriced = reader(end(1))
    expect(await tailCost(unpriced.file, 0, unpriced.size, 0)).toBeUndefined()
    const far = reader(
      end(1, { amount: 1, currency: 'USD' }) +
        line(2, 'context/note', { text: 'x'.repeat(TAIL_COST_WINDOW) }),
    )
    expect(await tailCost(far.file, 0, far.size, 0)).toBeUndefined()
  })

  it('passes over the marker inside a torn last line', async () => {
    const { file, size } = reader(`${end(1, { amount: 1, currency: 'USD' })}{"seq":2,"type":"turn/end","da`)
    expect(await tailCost(file, 0, size, 0)).toBeUndefined()
  })
})
