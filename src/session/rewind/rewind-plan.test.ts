import { describe, expect, it } from 'vitest'
import { appendTurn, startStore, thrown } from '../../../test/support/session-store.js'
import { SessionErrorCode, SessionForkError } from '../errors.js'
import { assertRewindable, planRewind } from './rewind-plan.js'

/** A store with session `s` holding three short turns (seqs 1-6, 7-12, 13-18). */
async function threeTurns() {
  const store = await startStore()
  const session = store.sessions.create('s')
  for (const text of ['one', 'two', 'three']) appendTurn(session, text)
  return { store, session }
}

describe('the rewind plan', () => {
  it('keeps the events through the boundary and says what goes: events, messages, the branch title', async () => {
    const { store, session } = await threeTurns()
    expect(planRewind(session, 6)).toEqual({
      sessionId: 's',
      boundary: 6,
      filesBoundary: 6,
      removed: 12,
      messagesDropped: 4,
      branchTitle: `${session.title ?? 's'} (before rewind)`,
    })
    expect(planRewind(session, 18)).toMatchObject({ boundary: 18, removed: 0, messagesDropped: 0 })
    await store.stop()
  })

  it('restores the files to the end of the last turn kept, not to events after it', async () => {
    const { store, session } = await threeTurns()
    session.append({ type: 'session/title', data: { title: 'named' } })
    appendTurn(session, 'four')
    expect(planRewind(session, 19)).toMatchObject({ boundary: 19, filesBoundary: 18, messagesDropped: 2 })
    expect(planRewind(session, 0)).toMatchObject({ boundary: 0, filesBoundary: 0, messagesDropped: 8 })
    await store.stop()
  })

  it('refuses a boundary inside a turn as fork does', async () => {
    const { store, session } = await threeTurns()
    expect(thrown(() => planRewind(session, 8))).toMatchObject({ code: SessionErrorCode.OPEN_TURN })
    expect(thrown(() => planRewind(session, 19))).toMatchObject({ code: SessionErrorCode.INVALID_BOUNDARY })
    await store.stop()
  })

  it('plans a boundary inside the inherited fork seed as refused, and the store refuses it with the same words', async () => {
    const { store, session } = await threeTurns()
    const child = store.sessions.fork(session, 12, 'c')
    appendTurn(child, 'three again')
    const plan = planRewind(child, 6)
    expect(plan.intoSeed).toEqual({ parentSession: 's', seedLength: 12 })
    expect(plan.messagesDropped).toBe(4)
    const refusal = thrown(() => assertRewindable(plan))
    expect(refusal).toBeInstanceOf(SessionForkError)
    expect(refusal).toMatchObject({
      code: SessionErrorCode.INVALID_BOUNDARY,
      message:
        'session c was forked from s with its first 12 events: it cannot be rewound to seq 6, before them (fork s there instead)',
      data: { sessionId: 'c', boundary: 6, seedLength: 12 },
    })
    await expect(store.sessions.rewind(child, 6)).rejects.toMatchObject({
      message: (refusal as Error).message,
    })
    expect(planRewind(child, 12).intoSeed).toBeUndefined()
    expect(() => assertRewindable(planRewind(child, 12))).not.toThrow()
    await store.stop()
  })
})
