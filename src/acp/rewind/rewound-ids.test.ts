import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { appendTurn, startStore, tempDir } from '../../../test/support/session-store.js'
import type { SessionStore } from '../../session/index.js'
import { rewindPoints } from '../../session/index.js'
import type { CallContext } from '../call-context.js'
import { airRewind } from './air-rewind.js'
import { modeRewind } from './mode-rewind.js'

let store: ReturnType<typeof tempDir>
beforeEach(() => {
  store = tempDir('dsh-rewound-ids-')
})
afterEach(() => store.cleanup())

/** A call on `sessions` whose agent runs no turn (only the conversation half is asked for). */
function callOn(sessions: SessionStore): CallContext {
  return {
    sessions,
    agent: { isRunning: () => false, cancel: async () => {} },
    afterResponse: () => {},
    notify: async () => {},
    clientBridge: () => ({}),
  } as unknown as CallContext
}

const prompts = (sessions: SessionStore, id: string) =>
  rewindPoints(sessions.require(id)).map((point) => ({ id: point.messageId, text: point.text }))

/** Session `s` with prompts one, two, three; "three" undone by `_session/rewind`; then "four". */
async function rewoundThenPrompted(sessions: SessionStore) {
  const session = sessions.create('s')
  for (const text of ['one', 'two', 'three']) appendTurn(session, text)
  const undone = prompts(sessions, 's')[2] as { id: string; text: string }
  expect(undone.text).toBe('three')
  const call = callOn(sessions)
  const first = await modeRewind({ sessionId: 's', messageId: undone.id, mode: 'conversation' }, call)
  expect(first.conversation).toMatchObject({ rewound: true })
  appendTurn(sessions.require('s'), 'four')
  await sessions.flush('s')
  return { undone: undone.id, call }
}

describe('message ids after a rewind (issue 35.2)', () => {
  it('the next prompt never gets an undone prompt id; a rewind by that id (claude-agent-acp shape) refuses', async () => {
    const f = await startStore(store.dir)
    const { undone, call } = await rewoundThenPrompted(f.sessions)
    const now = prompts(f.sessions, 's')
    expect(now.map((p) => p.text)).toEqual(['one', 'two', 'four'])
    expect(now.map((p) => p.id)).not.toContain(undone)
    const stale = modeRewind({ sessionId: 's', messageId: undone, mode: 'conversation' }, call)
    await expect(stale).rejects.toMatchObject({ code: -32602 })
    // "four" is still there: the stale id rewound nothing.
    expect(prompts(f.sessions, 's').map((p) => p.text)).toEqual(['one', 'two', 'four'])
    await f.stop()
  })

  it('a rewind by the undone id in the JetBrains AIR shape refuses too; the new id finds "four"', async () => {
    const f = await startStore(store.dir)
    const { undone, call } = await rewoundThenPrompted(f.sessions)
    const points = rewindPoints(f.sessions.require('s'))
    const four = points[2]
    const resumeAt = four?.resumeAt
    if (!four || !resumeAt) throw new Error('expected a third prompt with an answer before it')
    const resumeAtMessage = { messageId: f.sessions.require('s').messageIdAt(resumeAt.seq) }
    const stale = airRewind({ sessionId: 's', beforeMessage: { messageId: undone }, resumeAtMessage }, call)
    await expect(stale).rejects.toMatchObject({ code: -32602 })
    expect(prompts(f.sessions, 's').map((p) => p.text)).toEqual(['one', 'two', 'four'])
    const right = await airRewind(
      { sessionId: 's', beforeMessage: { messageId: four.messageId }, resumeAtMessage },
      call,
    )
    expect(right).toMatchObject({ rewound: true })
    expect(prompts(f.sessions, 's').map((p) => p.text)).toEqual(['one', 'two'])
    await f.stop()
  })

  it('ids are the same on every load; the branch names its messages as the session did', async () => {
    const f = await startStore(store.dir)
    const { undone } = await rewoundThenPrompted(f.sessions)
    const live = prompts(f.sessions, 's')
    const branchId = f.sessions
      .require('s')
      .events()
      .find((event) => event.type === 'rewind:marker')?.data as { branch: string } | undefined
    await f.stop()
    const g = await startStore(store.dir)
    await g.sessions.load('s')
    expect(prompts(g.sessions, 's')).toEqual(live)
    await g.sessions.load(branchId?.branch as string)
    const branch = prompts(g.sessions, branchId?.branch as string)
    expect(branch.map((p) => p.text)).toEqual(['one', 'two', 'three'])
    expect(branch[2]?.id).toBe(undone)
    // Ids before the rewind are those of 0.3 (msg_<seq>): old sessions load with their ids unchanged.
    expect(branch.map((p) => p.id)).toEqual(
      live
        .slice(0, 2)
        .map((p) => p.id)
        .concat(undone),
    )
    expect(live[0]?.id).toMatch(/^msg_\d+$/)
    await g.stop()
  })
})
