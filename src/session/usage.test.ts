import { describe, expect, it } from 'vitest'
import type { SessionEvent } from './log/events.js'
import { keptDataFrom, storedEvent } from './log/stored-event.js'
import { lastTurnUsage, ownCost, roundAmount, type UsageView, usedTokens } from './usage.js'

/** A log of `data` events, seq 1.. in order, as a view with the given seed length. */
function view(events: readonly (readonly [string, Record<string, unknown>])[], seedLength = 0): UsageView {
  const log = events.map(
    ([type, data], i) =>
      ({ seq: i + 1, type, time: '2026-01-01T00:00:00.000Z', data }) as unknown as SessionEvent,
  )
  return { at: (seq) => log[seq - 1], lastSeq: log.length, seedLength }
}

const usd = (amount: number) => ({ amount, currency: 'USD' })
const step = (usage: object, cost?: object) =>
  ['assistant/message', { turn: 1, step: 1, content: '', usage, ...(cost && { cost }) }] as const

describe('usage as a projection of the log', () => {
  it('used is the latest step with usage, inherited steps included', () => {
    const log = view(
      [
        ['turn/start', { turn: 1 }],
        step({ inputTokens: 100, outputTokens: 5 }),
        step({ inputTokens: 150, outputTokens: 7 }),
        ['turn/end', { turn: 1, reason: 'completed' }],
        ['turn/start', { turn: 2 }],
        ['assistant/message', { turn: 2, step: 1, content: 'no usage' }],
      ],
      4,
    )
    expect(usedTokens(log)).toBe(157)
    expect(usedTokens(view([['turn/start', { turn: 1 }]]))).toBeUndefined()
  })

  it('a fork child counts only its own costs, from the latest turn/end total on', () => {
    const parent: (readonly [string, Record<string, unknown>])[] = [
      ['turn/start', { turn: 1 }],
      step({ inputTokens: 1, outputTokens: 1 }, usd(0.5)),
      ['turn/end', { turn: 1, reason: 'completed', cost: usd(0.5) }],
    ]
    expect(ownCost(view(parent))).toEqual(usd(0.5))
    expect(ownCost(view(parent, 3))).toBeUndefined()
    const child = view(
      [
        ...parent,
        ['turn/start', { turn: 2 }],
        step({ inputTokens: 1, outputTokens: 1 }, usd(0.25)),
        ['turn/end', { turn: 2, reason: 'completed', cost: usd(0.25) }],
        ['turn/start', { turn: 3 }],
        step({ inputTokens: 1, outputTokens: 1 }, usd(0.125)),
      ],
      3,
    )
    expect(ownCost(child)).toEqual(usd(0.375))
  })

  it('a turn/end without a total (an interrupted turn) does not hide the totals before it', () => {
    const log = view([
      ['turn/start', { turn: 1 }],
      step({ inputTokens: 1, outputTokens: 1 }, usd(0.1)),
      ['turn/end', { turn: 1, reason: 'completed', cost: usd(0.1) }],
      ['turn/start', { turn: 2 }],
      ['turn/end', { turn: 2, reason: 'interrupted' }],
      ['turn/start', { turn: 3 }],
      step({ inputTokens: 1, outputTokens: 1 }, usd(0.2)),
    ])
    expect(ownCost(log)).toEqual({ amount: 0.3, currency: 'USD' })
  })

  it('sums in the currency of the latest priced step; others are left out', () => {
    const log = view([
      ['turn/start', { turn: 1 }],
      step({ inputTokens: 1, outputTokens: 1 }, usd(1)),
      step({ inputTokens: 1, outputTokens: 1 }, { amount: 2, currency: 'EUR' }),
    ])
    expect(ownCost(log)).toEqual({ amount: 2, currency: 'EUR' })
  })

  it("the last turn's usage sums its steps, with cached and reasoning tokens only where reported", () => {
    const log = view([
      ['turn/start', { turn: 1 }],
      step({ inputTokens: 9, outputTokens: 9, cachedInputTokens: 9 }),
      ['turn/end', { turn: 1, reason: 'completed' }],
      ['turn/start', { turn: 2 }],
      step({ inputTokens: 100, outputTokens: 10, cachedInputTokens: 80 }),
      step({ inputTokens: 120, outputTokens: 5 }),
      ['turn/end', { turn: 2, reason: 'completed' }],
    ])
    expect(lastTurnUsage(log)).toEqual({ inputTokens: 220, outputTokens: 15, cachedInputTokens: 80 })
  })

  it('amounts keep no float dust', () => {
    expect(roundAmount(0.1 + 0.2)).toBe(0.3)
  })

  it('reads no body of a stand-in back: what a stand-in kept answers, with or without usage in the log', () => {
    let reads = 0
    /** Each event of `log` as a backend's stand-in for it, counting the reads of its body. */
    const standIns = (log: UsageView): UsageView => {
      const events = Array.from({ length: log.lastSeq }, (_, i) => {
        const event = log.at(i + 1) as SessionEvent
        const read = () => {
          reads++
          return JSON.parse(JSON.stringify(event.data))
        }
        return storedEvent({ seq: event.seq, type: event.type, time: event.time }, read, keptDataFrom(event))
      })
      return { at: (seq) => events[seq - 1], lastSeq: log.lastSeq, seedLength: log.seedLength }
    }
    const priced = view([
      ['turn/start', { turn: 1 }],
      step({ inputTokens: 100, outputTokens: 5 }, usd(0.5)),
      ['turn/end', { turn: 1, reason: 'completed', cost: usd(0.5) }],
      ['turn/start', { turn: 2 }],
      step({ inputTokens: 150, outputTokens: 7, cachedInputTokens: 3 }, usd(0.25)),
      ['assistant/message', { turn: 2, step: 2, content: 'no usage' }],
    ])
    const unpriced = view(
      Array.from(
        { length: 50 },
        (_, i) => ['assistant/message', { turn: 1, step: 1, content: `${i}` }] as const,
      ),
    )
    for (const log of [priced, unpriced]) {
      const kept = standIns(log)
      expect(usedTokens(kept)).toEqual(usedTokens(log))
      expect(ownCost(kept)).toEqual(ownCost(log))
      expect(lastTurnUsage(kept)).toEqual(lastTurnUsage(log))
    }
    expect(usedTokens(priced)).toBe(157)
    expect(reads).toBe(0)
  })
})
