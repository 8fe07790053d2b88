import { describe, expect, it } from 'vitest'
import { appendAll, shortTurn, storePerTest } from '../../../../test/support/session-store.js'
import type { BoardNote } from '../../../session/index.js'
import { asksToCancel, cancelOf, openTurnOf } from './cross-cancel.js'

const f = storePerTest()
/** A note as another process posts it: plain JSON, its cancel whatever that process wrote. */
const note = (cancel?: unknown): BoardNote =>
  JSON.parse(JSON.stringify({ attached: 1, clients: [], questions: [], outcomes: [], cancel }))

describe('a cancel on the board', () => {
  it('names the open turn by its number and its turn/start, and reaches only that turn', () => {
    const session = f.sessions.create()
    appendAll(session, shortTurn(1, 'first').slice(0, 2))
    const first = openTurnOf(session)
    expect(first).toEqual({ turn: 1, seq: 1, time: expect.any(String) })
    expect(asksToCancel([note(first)], session)).toEqual(first)
    // The turn ends and another starts: the request for the first reaches nothing.
    f.tick(5)
    appendAll(session, shortTurn(1, 'first').slice(2))
    expect(openTurnOf(session)).toBeUndefined()
    expect(asksToCancel([note(first)], session)).toBeUndefined()
    appendAll(session, shortTurn(2, 'second').slice(0, 2))
    expect(asksToCancel([note(first)], session)).toBeUndefined()
    expect(asksToCancel([note(), note(openTurnOf(session))], session)).toEqual(openTurnOf(session))
  })

  it('a turn of the same number and seq started at another time (a later log after a rewind) is another turn', () => {
    const session = f.sessions.create()
    appendAll(session, shortTurn(1, 'first').slice(0, 2))
    const open = openTurnOf(session)
    expect(asksToCancel([note({ ...open, time: '2000-01-01T00:00:00.000Z' })], session)).toBeUndefined()
    expect(asksToCancel([note({ ...open, seq: 2 })], session)).toBeUndefined()
  })

  it('ignores a cancel that is not well formed (another process wrote it)', () => {
    for (const bad of [
      null,
      'turn 1',
      { turn: '1', seq: 1, time: 't' },
      { turn: 1.5, seq: 1, time: 't' },
      { turn: 1, seq: 1 },
    ])
      expect(cancelOf(note(bad))).toBeUndefined()
  })
})
