import { describe, expect, it } from 'vitest'
import {
  appendAll,
  cleanTurn,
  storePerTest,
  thrown,
  withOpenSecondTurn,
} from '../../../test/support/session-store.js'
import { SessionError, SessionErrorCode, SessionForkError } from '../errors.js'
import type { Session } from '../session.js'

const f = storePerTest()

/** Turn 1 closed (seq 1-11), a title (12), a plugin event (13), turn 2 open with a step (14-17). */
function busySession(id = 'src'): Session {
  return withOpenSecondTurn(f.sessions.create(id, { meta: { cwd: '/repo/a' } }), 'ls')
}

function forkError(fn: () => unknown): SessionForkError {
  const error = thrown(fn)
  expect(error).toBeInstanceOf(SessionForkError)
  expect(error).toBeInstanceOf(SessionError)
  return error as SessionForkError
}

describe('fork: the Agent Note rules', () => {
  it('fork: boundary is the inclusive source seq to copy through', () => {
    const s = appendAll(f.sessions.create('src'), [...cleanTurn(1), ...cleanTurn(2)])
    const child = f.sessions.fork(s, 11)
    expect(child.lastSeq).toBe(11)
    expect(child.events()).toEqual(s.events().slice(0, 11))
    expect(child.at(11)?.type).toBe('turn/end')
  })

  it('fork: an omitted boundary defaults to the source’s last event', () => {
    const s = appendAll(f.sessions.create('src'), [...cleanTurn(1), ...cleanTurn(2)])
    const child = f.sessions.fork(s)
    expect(child.lastSeq).toBe(22)
    expect(child.events()).toEqual(s.events())
  })

  it('fork: an empty source with the boundary omitted gives an empty child', () => {
    const s = f.sessions.create('src')
    const child = f.sessions.fork(s)
    expect(child.length).toBe(0)
    expect(child.header.seedLength).toBe(0)
  })

  it('fork: boundary 0 gives an empty child, even while the source is inside a turn', () => {
    const s = busySession()
    const child = f.sessions.fork(s, 0)
    expect(child.events()).toEqual([])
    expect(child.header.seedLength).toBe(0)
    child.append({ type: 'turn/start', data: { turn: 1 } })
    expect(child.lastTurn).toBe(1)
  })

  it('fork: the prefix may end at a turn/end', () => {
    const child = f.sessions.fork(busySession(), 11)
    expect(child.at(11)?.type).toBe('turn/end')
  })

  it('fork: the prefix may end at a later standalone or plugin event', () => {
    const s = busySession()
    expect(f.sessions.fork(s, 12).at(12)?.type).toBe('session/title')
    expect(f.sessions.fork(s, 13).at(13)?.type).toBe('metrics:sample')
  })

  it('fork: the prefix may end at standalone events before any turn', () => {
    const s = f.sessions.create('src')
    s.append({ type: 'context/note', data: { text: 'repo uses pnpm' } })
    s.append({ type: 'audit:opened', data: { by: 'me' } })
    expect(f.sessions.fork(s, 1).events()).toEqual(s.events().slice(0, 1))
    expect(f.sessions.fork(s, 2).events()).toEqual(s.events())
  })

  it('fork: the child inherits cwd; its header has parentSession and seedLength', () => {
    const child = f.sessions.fork(busySession(), 13, 'kid')
    expect(child.id).toBe('kid')
    expect(child.cwd).toBe('/repo/a')
    expect(child.header.parentSession).toBe('src')
    expect(child.header.seedLength).toBe(13)
  })

  it('fork: the child continues at seq = boundary + 1, with the next turn number', () => {
    const child = f.sessions.fork(busySession(), 12)
    const next = child.append({ type: 'turn/start', data: { turn: 2 } })
    expect(next.seq).toBe(13)
  })

  it('fork: a child id is minted by the store when omitted', () => {
    const s = busySession()
    const child = f.sessions.fork(s, 11)
    expect(child.id).toBe('ses_1')
    expect(f.sessions.get('ses_1')).toBe(child)
  })

  it('fork: the source may be given by id', () => {
    busySession()
    const child = f.sessions.fork('src', 11, 'kid')
    expect(child.header.parentSession).toBe('src')
  })

  it('fork: child and parent are independent afterwards (appending to one never shows in the other)', () => {
    const s = appendAll(f.sessions.create('src'), cleanTurn(1))
    const child = f.sessions.fork(s, 11, 'kid')
    const before = s.events()
    appendAll(child, cleanTurn(2, 'child asks'))
    expect(s.events()).toEqual(before)
    expect(s.lastSeq).toBe(11)
    appendAll(s, cleanTurn(2, 'parent asks'))
    expect(child.lastSeq).toBe(22)
    expect(child.events().map((e) => e.data)).not.toContainEqual(s.at(13)?.data)
    expect(child.at(13)?.data).toEqual({ turn: 2, content: [{ type: 'text', text: 'child asks' }] })
  })

  it('fork: a fork of a fork keeps its own parent and independent log', () => {
    const s = appendAll(f.sessions.create('src'), [...cleanTurn(1), ...cleanTurn(2)])
    const child = f.sessions.fork(s, 11, 'kid')
    const grandchild = f.sessions.fork(child, 11, 'grandkid')
    expect(grandchild.header.parentSession).toBe('kid')
    appendAll(grandchild, cleanTurn(2))
    expect(child.lastSeq).toBe(11)
  })
})

describe('fork: typed errors', () => {
  it('INVALID_BOUNDARY: a boundary that is not an integer in [0, lastSeq] is refused', () => {
    const s = busySession()
    for (const boundary of [-1, 1.5, Number.NaN, s.lastSeq + 1, Number.POSITIVE_INFINITY]) {
      const error = forkError(() => f.sessions.fork(s, boundary))
      expect(error.code).toBe(SessionErrorCode.INVALID_BOUNDARY)
      expect(error.data).toMatchObject({ sessionId: 'src', lastSeq: s.lastSeq })
    }
  })

  it('INVALID_BOUNDARY: a boundary that is not a number is refused', () => {
    const s = appendAll(f.sessions.create('src'), cleanTurn(1))
    for (const boundary of ['3', null, {}, 3n]) {
      const error = forkError(() => f.sessions.fork(s, boundary as unknown as number))
      expect(error.code).toBe(SessionErrorCode.INVALID_BOUNDARY)
    }
  })

  it('INVALID_BOUNDARY: any boundary but 0 is refused on an empty source', () => {
    const s = f.sessions.create('src')
    expect(forkError(() => f.sessions.fork(s, 1)).code).toBe(SessionErrorCode.INVALID_BOUNDARY)
  })

  it('OPEN_TURN: a prefix whose latest turn boundary is an unmatched turn/start is refused, with lastSafeBoundary', () => {
    const s = busySession()
    for (const boundary of [14, 15, 16, 17]) {
      const error = forkError(() => f.sessions.fork(s, boundary))
      expect(error.code).toBe(SessionErrorCode.OPEN_TURN)
      expect(error.data).toMatchObject({ sessionId: 'src', boundary, lastSafeBoundary: 13 })
    }
  })

  it('OPEN_TURN: the default boundary of a source inside a turn is refused, never clipped', () => {
    const s = busySession()
    const error = forkError(() => f.sessions.fork(s))
    expect(error.code).toBe(SessionErrorCode.OPEN_TURN)
    expect(error.data).toMatchObject({ boundary: 17, lastSafeBoundary: 13 })
    expect(f.sessions.liveSessions().map((x) => x.id)).toEqual(['src'])
  })

  it('OPEN_TURN: a boundary inside a turn that closed later is refused; lastSafeBoundary forks', () => {
    const s = appendAll(f.sessions.create('src'), [...cleanTurn(1), ...cleanTurn(2)])
    const error = forkError(() => f.sessions.fork(s, 16))
    expect(error.data).toMatchObject({ boundary: 16, lastSafeBoundary: 11 })
    expect(f.sessions.fork(s, error.data.lastSafeBoundary as number).lastSeq).toBe(11)
  })

  it('OPEN_TURN: inside the first turn, lastSafeBoundary is 0 (an empty child)', () => {
    const s = appendAll(f.sessions.create('src'), cleanTurn(1))
    expect(forkError(() => f.sessions.fork(s, 1)).data).toMatchObject({ boundary: 1, lastSafeBoundary: 0 })
  })

  it('SESSION_NOT_FOUND: a source id with no live session is refused', () => {
    const error = forkError(() => f.sessions.fork('nobody'))
    expect(error.code).toBe(SessionErrorCode.SESSION_NOT_FOUND)
    expect(error.data).toMatchObject({ sessionId: 'nobody' })
  })

  it('SESSION_NOT_LIVE: a Session object that was closed is refused', async () => {
    const s = appendAll(f.sessions.create('src'), cleanTurn(1))
    await f.sessions.close('src')
    const error = forkError(() => f.sessions.fork(s))
    expect(error.code).toBe(SessionErrorCode.SESSION_NOT_LIVE)
    expect(error.data).toMatchObject({ sessionId: 'src' })
  })

  it('SESSION_NOT_LIVE: a Session object replaced by a new session with the same id is refused', async () => {
    const stale = appendAll(f.sessions.create('src'), cleanTurn(1))
    await f.sessions.close('src')
    const fresh = f.sessions.create('src')
    expect(forkError(() => f.sessions.fork(stale)).code).toBe(SessionErrorCode.SESSION_NOT_LIVE)
    expect(f.sessions.fork(fresh).header.parentSession).toBe('src')
  })

  it('SESSION_ALREADY_EXISTS: a child id that is taken is refused', () => {
    const s = appendAll(f.sessions.create('src'), cleanTurn(1))
    f.sessions.create('taken')
    const error = forkError(() => f.sessions.fork(s, 11, 'taken'))
    expect(error.code).toBe(SessionErrorCode.SESSION_ALREADY_EXISTS)
    expect(error.data).toMatchObject({ sessionId: 'taken' })
    expect(forkError(() => f.sessions.fork(s, 11, 'src')).code).toBe(SessionErrorCode.SESSION_ALREADY_EXISTS)
  })

  it('INVALID_SESSION_ID: a child id outside ^[A-Za-z0-9_-]{1,128}$ is refused', () => {
    const s = appendAll(f.sessions.create('src'), cleanTurn(1))
    for (const id of ['', '../etc', 'a b', 'x'.repeat(129), 'é']) {
      const error = forkError(() => f.sessions.fork(s, 11, id))
      expect(error.code).toBe(SessionErrorCode.INVALID_SESSION_ID)
    }
    expect(f.sessions.fork(s, 11, 'x'.repeat(128)).id).toHaveLength(128)
  })

  it('a refused fork creates no session and emits nothing', () => {
    const s = busySession()
    const created: string[] = []
    f.ctx.on('session/created', (session) => {
      created.push(session.id)
    })
    thrown(() => f.sessions.fork(s, 15, 'kid'))
    thrown(() => f.sessions.fork(s, 99, 'kid'))
    expect(created).toEqual([])
    expect(f.sessions.get('kid')).toBeUndefined()
  })
})
