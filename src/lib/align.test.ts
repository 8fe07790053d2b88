import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { align } from './align.js'

/** Rebuilds both sides from an alignment, checking each equal step pairs equal items. */
function replayAlignment(a: string[], b: string[]) {
  const steps = align(a, b)
  const fromA: string[] = []
  const fromB: string[] = []
  for (const step of steps) {
    if (step.op === 'equal') {
      expect(a[step.a]).toBe(b[step.b])
      fromA.push(a[step.a] as string)
      fromB.push(b[step.b] as string)
    } else if (step.op === 'delete') fromA.push(a[step.a] as string)
    else fromB.push(b[step.b] as string)
  }
  return { steps, fromA, fromB }
}

/** Length of a longest common subsequence, by dynamic programming. */
function lcs(a: string[], b: string[]): number {
  const row = new Array<number>(b.length + 1).fill(0)
  for (const x of a) {
    let diagonal = 0
    for (let j = 1; j <= b.length; j++) {
      const up = row[j] as number
      row[j] = x === b[j - 1] ? diagonal + 1 : Math.max(up, row[j - 1] as number)
      diagonal = up
    }
  }
  return row[b.length] as number
}

describe('align', () => {
  it('walks both sequences in order and keeps a longest common subsequence', () => {
    const item = fc.constantFrom('a', 'b', 'c', 'd')
    fc.assert(
      fc.property(fc.array(item, { maxLength: 30 }), fc.array(item, { maxLength: 30 }), (a, b) => {
        const { steps, fromA, fromB } = replayAlignment(a, b)
        expect(fromA).toEqual(a)
        expect(fromB).toEqual(b)
        expect(steps.filter((s) => s.op === 'equal')).toHaveLength(lcs(a, b))
      }),
    )
  })

  it('reports one missing and one extra item where they are', () => {
    expect(align(['x', 'y', 'z'], ['x', 'z', 'w'])).toEqual([
      { op: 'equal', a: 0, b: 0 },
      { op: 'delete', a: 1 },
      { op: 'equal', a: 2, b: 1 },
      { op: 'insert', b: 2 },
    ])
  })
})
