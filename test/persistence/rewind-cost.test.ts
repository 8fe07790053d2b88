import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AnyEventInput } from '../../src/session/log/events.js'
import { ownCost } from '../../src/session/usage.js'
import { appendAll, startStore, tempDir } from '../support/session-store.js'

let store: ReturnType<typeof tempDir>
beforeEach(() => {
  store = tempDir('dsh-rewind-cost-')
})
afterEach(() => store.cleanup())

const usd = (amount: number) => ({ amount, currency: 'USD' })

/** A turn whose one step cost `step`, its `turn/end` recording `total` (the session's cost so far). */
function pricedTurn(turn: number, step: number, total: number): AnyEventInput[] {
  return [
    { type: 'turn/start', data: { turn } },
    { type: 'user/message', data: { turn, content: [{ type: 'text', text: `prompt ${turn}` }] } },
    { type: 'step/start', data: { turn, step: 1 } },
    { type: 'assistant/message', data: { turn, step: 1, content: `answer ${turn}`, cost: usd(step) } },
    { type: 'step/end', data: { turn, step: 1 } },
    { type: 'turn/end', data: { turn, reason: 'completed', cost: usd(total) } },
  ]
}

describe('cost after a rewind (issue 35.3)', () => {
  it('a rewind never lowers the session cost: live, listed after a restart, and counted on by the next turn', async () => {
    const f = await startStore(store.dir)
    const session = appendAll(f.sessions.create('s'), [
      ...pricedTurn(1, 0.0056, 0.0056),
      ...pricedTurn(2, 0.0089, 0.0145),
    ])
    expect(ownCost(session)).toEqual(usd(0.0145))
    const { session: rewound } = await f.sessions.rewind(session, 6)
    expect(ownCost(rewound)).toEqual(usd(0.0145))
    expect(rewound.summary().cost).toEqual(usd(0.0145))
    await f.stop()

    const g = await startStore(store.dir)
    const listed = (await g.sessions.list({})).sessions.find((entry) => entry.sessionId === 's')
    expect(listed?.cost).toEqual(usd(0.0145))
    const loaded = await g.sessions.load('s')
    expect(ownCost(loaded)).toEqual(usd(0.0145))
    // The next turn goes on from what was spent: its step adds to it.
    appendAll(loaded, pricedTurn(2, 0.001, 0.0155).slice(0, 5))
    expect(ownCost(loaded)).toEqual(usd(0.0155))
    await g.stop()
  })

  it('a fork of the rewound session starts from zero, as any fork child does', async () => {
    const f = await startStore(store.dir)
    const session = appendAll(f.sessions.create('s'), [
      ...pricedTurn(1, 0.0056, 0.0056),
      ...pricedTurn(2, 0.0089, 0.0145),
    ])
    const { session: rewound } = await f.sessions.rewind(session, 6)
    const child = await f.sessions.forkDurable(rewound, rewound.lastSeq, 'child')
    expect(ownCost(child)).toBeUndefined()
    await f.stop()
  })
})
