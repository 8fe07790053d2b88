import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { appendAll, cleanTurn, type StoreFixture, startStore } from '../../../test/support/session-store.js'
import { SessionErrorCode } from '../errors.js'
import type { SessionHeader, SessionPage } from '../header.js'
import type { SessionId } from '../ids.js'
import type { SessionEvent } from '../log/events.js'
import type { SessionPersistence } from './persistence-port.js'

/** An in-memory SessionPersistence holding JSON copies, as a file backend would read them back. */
class FakePersistence implements SessionPersistence {
  readonly stored = new Map<SessionId, string>()
  readonly released: SessionId[] = []

  put(header: SessionHeader, events: readonly SessionEvent[]): void {
    this.stored.set(header.id, JSON.stringify({ header, events }))
  }

  async open(id: SessionId) {
    const text = this.stored.get(id)
    return text === undefined
      ? undefined
      : (JSON.parse(text) as { header: SessionHeader; events: SessionEvent[] })
  }

  async release(id: SessionId): Promise<void> {
    this.released.push(id)
  }

  async exists(id: SessionId): Promise<boolean> {
    return this.stored.has(id)
  }

  async list(): Promise<SessionPage> {
    return { sessions: [] }
  }

  async remove(id: SessionId): Promise<boolean> {
    return this.stored.delete(id)
  }

  async idle(): Promise<void> {}
}

let f: StoreFixture
let disk: FakePersistence
beforeEach(async () => {
  f = await startStore()
  disk = new FakePersistence()
  f.ctx.set('persistence', disk)
})
afterEach(async () => {
  await f.stop()
})

const header = (id: string): SessionHeader => ({ id, createdAt: '2025-12-31T00:00:00.000Z', cwd: '/p' })

describe('load', () => {
  it('load: a persisted log becomes live again, frozen, and continues at lastSeq + 1', async () => {
    const events = appendAll(f.sessions.create('src'), cleanTurn(1)).events()
    disk.put(header('old'), events)
    const loaded: string[] = []
    f.ctx.on('session/loaded', (s) => {
      loaded.push(s.id)
    })
    const s = await f.sessions.load('old')
    expect(loaded).toEqual(['old'])
    expect(s.events()).toEqual(events)
    expect(Object.isFrozen(s.at(2)?.data)).toBe(true)
    expect(s.append({ type: 'turn/start', data: { turn: 2 } }).seq).toBe(12)
    expect(await f.sessions.load('old')).toBe(s)
  })

  it('load: a log that ends inside an open turn gets turn/end {reason: "interrupted"} appended', async () => {
    const events = appendAll(f.sessions.create('src'), cleanTurn(1)).events()
    disk.put(header('crashed'), events.slice(0, 5))
    const appended: SessionEvent[] = []
    f.sessions.onAppended((_s, e) => {
      appended.push(e)
    })
    const s = await f.sessions.load('crashed')
    expect(s.lastSeq).toBe(6)
    expect(s.at(6)).toMatchObject({ seq: 6, type: 'turn/end', data: { turn: 1, reason: 'interrupted' } })
    expect(appended.map((e) => e.seq)).toEqual([6])
    expect(s.openTurn).toBeUndefined()
    expect(f.sessions.fork(s).lastSeq).toBe(6)
  })

  it('load: a log with a closed last turn gets nothing appended', async () => {
    disk.put(header('fine'), appendAll(f.sessions.create('src'), cleanTurn(1)).events())
    expect((await f.sessions.load('fine')).lastSeq).toBe(11)
  })

  it('CORRUPT_SESSION: a stored log that breaks an invariant is refused and released', async () => {
    const events = appendAll(f.sessions.create('src'), cleanTurn(1)).events()
    disk.put(header('bad'), [events[0], events[2]] as SessionEvent[])
    await expect(f.sessions.load('bad')).rejects.toMatchObject({ code: SessionErrorCode.CORRUPT_SESSION })
    expect(disk.released).toEqual(['bad'])
    expect(f.sessions.get('bad')).toBeUndefined()
  })

  it('SESSION_NOT_FOUND: load of an id the backend does not hold', async () => {
    await expect(f.sessions.load('ghost')).rejects.toMatchObject({ code: SessionErrorCode.SESSION_NOT_FOUND })
  })

  it('INVALID_SESSION_ID: load refuses a bad id before asking the backend', async () => {
    await expect(f.sessions.load('../x')).rejects.toMatchObject({ code: SessionErrorCode.INVALID_SESSION_ID })
  })
})

describe('forkDurable', () => {
  it('forkDurable: forks a persisted source that is not live, and flushes the child before resolving', async () => {
    disk.put(header('stored'), appendAll(f.sessions.create('src'), cleanTurn(1)).events())
    const flushed: string[] = []
    f.ctx.on('session/flush', async (s) => {
      flushed.push(s.id)
    })
    const child = await f.sessions.forkDurable('stored', 11, 'kid')
    expect(child.header).toMatchObject({ parentSession: 'stored', seedLength: 11, cwd: '/p' })
    expect(flushed).toEqual(['kid'])
  })

  it('SESSION_ALREADY_EXISTS: forkDurable refuses a child id that is taken on disk', async () => {
    const s = appendAll(f.sessions.create('src'), cleanTurn(1))
    disk.put(header('on-disk'), [])
    await expect(f.sessions.forkDurable(s, 11, 'on-disk')).rejects.toMatchObject({
      code: SessionErrorCode.SESSION_ALREADY_EXISTS,
    })
    expect(f.sessions.get('on-disk')).toBeUndefined()
  })

  it('SESSION_NOT_FOUND: forkDurable of an id neither live nor stored is a SessionForkError', async () => {
    await expect(f.sessions.forkDurable('ghost')).rejects.toMatchObject({
      name: 'SessionForkError',
      code: SessionErrorCode.SESSION_NOT_FOUND,
    })
  })

  it('forkDurable: when the child cannot be made durable, it rejects and the child is not left live', async () => {
    const s = appendAll(f.sessions.create('src'), cleanTurn(1))
    f.ctx.on('session/flush', async (session) => {
      if (session.id === 'kid') throw new Error('disk full')
    })
    await expect(f.sessions.forkDurable(s, 11, 'kid')).rejects.toThrow(/disk full/)
    expect(f.sessions.get('kid')).toBeUndefined()
    expect(f.sessions.get('src')).toBe(s)
  })
})
