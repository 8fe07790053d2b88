import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { appendAll, cleanTurn, type StoreFixture, startStore } from '../../test/support/session-store.js'

let f: StoreFixture
beforeEach(async () => {
  f = await startStore()
})
afterEach(() => f.stop())

describe('Session.titleOrigin: the title and the event it comes from', () => {
  it('none before a prompt; derived: the first user/message; set: the last session/title', () => {
    const session = f.sessions.create()
    expect(session.titleOrigin).toBeUndefined()
    appendAll(session, cleanTurn(1, 'fix the build'))
    expect(session.titleOrigin).toEqual({ title: 'fix the build', seq: 2 })
    const first = session.append({ type: 'session/title', data: { title: 'Build' } })
    appendAll(session, cleanTurn(2))
    expect(session.titleOrigin).toEqual({ title: 'Build', seq: first.seq })
    const second = session.append({ type: 'session/title', data: { title: 'Build, again' } })
    expect(session.titleOrigin).toEqual({ title: 'Build, again', seq: second.seq })
    expect(session.title).toBe('Build, again')
  })

  it('a title from the header (a fork child’s own) comes from no event, until the child sets one', () => {
    const parent = appendAll(f.sessions.create(), cleanTurn(1, 'root'))
    parent.append({ type: 'session/title', data: { title: 'Root' } })
    const child = f.sessions.fork(parent)
    expect(child.titleOrigin).toEqual({ title: 'Root (fork)' })
    const own = child.append({ type: 'session/title', data: { title: 'Mine' } })
    expect(child.titleOrigin).toEqual({ title: 'Mine', seq: own.seq })
  })
})
