import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { WireId } from './envelope.js'
import { RequestLedger } from './ledger.js'

const ids: WireId[] = [0, -0, 1, '1', '01', '1.0', '0', '-0', 1e21, '1e+21', '1e21', -5, '-5', 'abc', '']

describe('RequestLedger inbound ids', () => {
  it('behaves as one set of ids compared by their string form (1 and "1" are the same id)', () => {
    const op = fc.record({
      kind: fc.constantFrom('admit', 'has', 'release'),
      id: fc.constantFrom(...ids),
    })
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const ledger = new RequestLedger()
        const model = new Set<string>()
        for (const { kind, id } of ops) {
          const key = String(id)
          if (kind === 'admit') {
            expect(ledger.admitInbound(id)).toBe(!model.has(key))
            model.add(key)
          } else if (kind === 'has') {
            expect(ledger.hasInbound(id)).toBe(model.has(key))
          } else {
            ledger.releaseInbound(id)
            model.delete(key)
          }
          expect(ledger.inboundCount).toBe(model.size)
        }
      }),
    )
  })
})
