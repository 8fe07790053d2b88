import { describe, expect, it } from 'vitest'
import {
  appendAll,
  cleanTurn,
  storePerTest,
  thrown,
  withOpenSecondTurn,
} from '../../../test/support/session-store.js'
import { SessionErrorCode, SessionForkError } from '../errors.js'
import type { Session } from '../session.js'

const f = storePerTest()

/** Turn 1 closed (1-11), a title (12), a plugin event (13), turn 2 open with a call `c` (14-17). */
function delegating(id = 'src'): Session {
  return withOpenSecondTurn(f.sessions.create(id, { meta: { cwd: '/repo/a' } }), 'delegate')
}

function forkError(fn: () => unknown): SessionForkError {
  const error = thrown(fn)
  expect(error).toBeInstanceOf(SessionForkError)
  return error as SessionForkError
}

describe('forkSubagent: the seed’s subagent rule', () => {
  it('clips an open turn away, keeping the standalone events after the last closed turn', () => {
    const s = delegating()
    expect(forkError(() => f.sessions.fork(s)).code).toBe(SessionErrorCode.OPEN_TURN)
    const child = f.sessions.forkSubagent(s, { turn: 2, callId: 'c' }, { title: 'Worker' })
    expect(child.events()).toEqual(s.events().slice(0, 13))
    expect(child.header).toMatchObject({
      cwd: '/repo/a',
      parentSession: 'src',
      seedLength: 13,
      title: 'Worker',
      subagent: { turn: 2, callId: 'c' },
    })
    expect(child.summary()).toMatchObject({ parentSession: 'src', subagent: { turn: 2, callId: 'c' } })
    expect(child.lastTurn).toBe(1)
    expect(s.lastSeq).toBe(17)
  })

  it('copies a parent that is between turns whole, and an empty parent as an empty child', () => {
    const closed = appendAll(f.sessions.create('closed'), cleanTurn(1))
    expect(f.sessions.forkSubagent(closed, { turn: 1, callId: 'x' }).lastSeq).toBe(11)
    const empty = f.sessions.create('empty')
    expect(f.sessions.forkSubagent(empty, { turn: 1, callId: 'x' }).header.seedLength).toBe(0)
  })

  it('inherits the parent’s explicit title when none is given', () => {
    const child = f.sessions.forkSubagent(delegating(), { turn: 2, callId: 'c' })
    expect(child.title).toBe('Busy')
  })

  it('refuses a malformed marker, an unknown or stale source and a taken child id, changing nothing', () => {
    const s = delegating()
    for (const marker of [
      null,
      {},
      { turn: 0, callId: 'c' },
      { turn: 1.5, callId: 'c' },
      { turn: 2, callId: '' },
    ]) {
      expect(forkError(() => f.sessions.forkSubagent(s, marker as never)).code).toBe(
        SessionErrorCode.INVALID_SUBAGENT_MARKER,
      )
    }
    expect(forkError(() => f.sessions.forkSubagent('nope', { turn: 1, callId: 'c' })).code).toBe(
      SessionErrorCode.SESSION_NOT_FOUND,
    )
    expect(
      forkError(() => f.sessions.forkSubagent(s, { turn: 2, callId: 'c' }, { childSessionId: 'src' })).code,
    ).toBe(SessionErrorCode.SESSION_ALREADY_EXISTS)
    expect(
      forkError(() => f.sessions.forkSubagent(s, { turn: 2, callId: 'c' }, { childSessionId: 'bad id' }))
        .code,
    ).toBe(SessionErrorCode.INVALID_SESSION_ID)
    expect(f.sessions.liveSessions().map((x) => x.id)).toEqual(['src'])
  })

  it('a subagent is an ordinary session: forkable at its own boundaries, listed with its marker', async () => {
    const child = f.sessions.forkSubagent(delegating(), { turn: 2, callId: 'c' }, { childSessionId: 'kid' })
    appendAll(child, cleanTurn(2))
    const grandchild = f.sessions.fork(child)
    expect(grandchild.header.subagent).toBeUndefined()
    expect(grandchild.events()).toEqual(child.events())
    const listed = (await f.sessions.list()).sessions.find((s) => s.sessionId === 'kid')
    expect(listed?.subagent).toEqual({ turn: 2, callId: 'c' })
  })
})
