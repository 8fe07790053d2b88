import { describe, expect, it } from 'vitest'
import { appendAll, appendTurn, type StoreFixture, startStore } from '../../../test/support/session-store.js'
import { rewindCommand } from '../../agent/rewind/rewind-command.js'
import type { CallContext } from '../call-context.js'
import { sessionRewindPointsMethod } from './rewind-methods.js'

/** A `/compact` turn: a slash command's prompt and answer. */
function appendCompactTurn(session: TestSession): void {
  const turn = session.lastTurn + 1
  appendAll(session, [
    { type: 'turn/start', data: { turn, command: 'compact' } },
    { type: 'user/message', data: { turn, content: [{ type: 'text', text: '/compact' }] } },
    { type: 'turn/end', data: { turn, reason: 'completed' } },
  ])
}

type TestSession = Parameters<typeof appendTurn>[0]

/**
 * What each side says of `session` as it stands: the points `_session/rewind_points` lists (index
 * and text), and what `/rewind N` answers when typed now.
 */
async function bothSides(store: StoreFixture, session: TestSession) {
  const call = { sessions: store.sessions } as Pick<CallContext, 'sessions'> as CallContext
  const { points } = (await sessionRewindPointsMethod.handle({ sessionId: session.id }, call)) as {
    points: { text: string; index: number }[]
  }
  const turnStart = session.lastSeq + 1
  return {
    listed: points.map((p) => [p.index, p.text]),
    rewind: (args: string) => rewindCommand().run({ session, sessions: store.sessions, args, turnStart }),
  }
}

describe('_session/rewind_points and /rewind N', () => {
  it('agree: a /compact turn is neither listed nor counted, and the N-th last listed is what /rewind N undoes', async () => {
    const store = await startStore()
    const session = store.sessions.create('s')
    appendTurn(session, 'one')
    appendCompactTurn(session)
    appendTurn(session, 'two')
    const { listed, rewind } = await bothSides(store, session)
    expect(listed).toEqual([
      [1, 'one'],
      [2, 'two'],
    ])
    expect(await rewind('3')).toBe('Cannot undo 3 prompts: there are 2 (try /rewind 2).')
    expect(await rewind('2')).toContain('from before "one"')
    await store.stop()
  })

  it('agree on a turn a message was steered into: the steer is neither listed nor counted, and /rewind 1 names the prompt it removes', async () => {
    const store = await startStore()
    const session = store.sessions.create('s')
    appendTurn(session, 'one')
    const turn = session.lastTurn + 1
    appendAll(session, [
      { type: 'turn/start', data: { turn } },
      { type: 'user/message', data: { turn, content: [{ type: 'text', text: 'two' }] } },
      { type: 'user/message', data: { turn, content: [{ type: 'text', text: 'in blue' }], steered: true } },
      { type: 'turn/end', data: { turn, reason: 'completed' } },
    ])
    const { listed, rewind } = await bothSides(store, session)
    expect(listed).toEqual([
      [1, 'one'],
      [2, 'two'],
    ])
    expect(await rewind('3')).toBe('Cannot undo 3 prompts: there are 2 (try /rewind 2).')
    expect(await rewind('1')).toContain('from before "two"')
    await store.stop()
  })
})
