import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../log/events.js'
import { HistoryProjector, projectHistory } from './history.js'

const callId = fc.constantFrom('call_1', 'call_2', 'call_3')
const eventBody = fc.oneof(
  fc.record({
    type: fc.constant('user/message'),
    data: fc.record({ content: fc.constant([{ type: 'text', text: 'q' }]) }),
  }),
  fc.record({ type: fc.constant('context/note'), data: fc.record({ text: fc.string({ maxLength: 3 }) }) }),
  fc.record({ type: fc.constant('step/start'), data: fc.constant({}) }),
  fc.record({
    type: fc.constant('assistant/message'),
    data: fc.record(
      { content: fc.string({ maxLength: 3 }), thought: fc.string({ maxLength: 2 }) },
      { requiredKeys: ['content'] },
    ),
  }),
  fc.record({
    type: fc.constant('tool/call'),
    data: fc.record({ callId, name: fc.constant('read'), input: fc.constant({}) }),
  }),
  fc.record({
    type: fc.constant('tool/result'),
    data: fc.record({ callId, output: fc.string({ maxLength: 3 }), isError: fc.boolean() }),
  }),
  fc.record({ type: fc.constant('step/end'), data: fc.constant({}) }),
  fc.record({
    type: fc.constant('turn/end'),
    data: fc.record({ reason: fc.constantFrom('end_turn', 'cancelled', 'max_turn_requests', 'refusal') }),
  }),
)

/** Events as the projection reads them (`type` and `data`); the other fields do not matter to it. */
const log = fc
  .array(eventBody, { maxLength: 40, size: 'medium' })
  .map((bodies) => bodies.map((body, i) => ({ seq: i + 1, time: 't', ...body }) as unknown as SessionEvent))

describe('HistoryProjector', () => {
  it('equals projecting from scratch at every length as the log grows, and never changes what it gave before', () => {
    fc.assert(
      fc.property(
        log.chain((events) =>
          fc.tuple(fc.constant(events), fc.array(fc.nat({ max: events.length }), { maxLength: 8 })),
        ),
        ([events, cuts]) => {
          const projector = new HistoryProjector()
          const given: Array<{ history: unknown; json: string }> = []
          for (const cut of [...cuts.sort((a, b) => a - b), events.length]) {
            const prefix = events.slice(0, cut)
            const history = projector.project(prefix)
            expect(history).toEqual(projectHistory(prefix))
            given.push({ history, json: JSON.stringify(history) })
          }
          for (const { history, json } of given) expect(JSON.stringify(history)).toBe(json)
        },
      ),
    )
  })

  it('starts over when the log it is given does not extend the one it saw', () => {
    fc.assert(
      fc.property(log, log, (first, second) => {
        const projector = new HistoryProjector()
        projector.project(first)
        expect(projector.project(second)).toEqual(projectHistory(second))
      }),
    )
  })
})
