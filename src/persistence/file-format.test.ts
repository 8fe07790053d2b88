import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../session/log/events.js'
import { eventLine } from './file-format.js'

describe('eventLine', () => {
  it('is JSON.stringify of an event made as Session.append makes it', () => {
    const text = fc.string({ unit: 'binary' })
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.oneof(fc.constantFrom('tool/call', 'turn/end', 'x/"quoted"\\n'), text),
        fc.oneof(
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          text,
        ),
        fc.dictionary(text, fc.jsonValue()),
        (seq, type, time, data) => {
          const event = Object.freeze({ seq, type, time, data }) as unknown as SessionEvent
          expect(eventLine(event)).toBe(JSON.stringify(event))
        },
      ),
      { numRuns: 500 },
    )
  })
})
