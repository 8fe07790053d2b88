import { Context } from 'cordis'
import { describe, expect, it, vi } from 'vitest'
import {
  appendAll,
  cleanTurn,
  startStore,
  storePerTest,
  T0,
  thrown,
} from '../../../test/support/session-store.js'
import { SessionError, SessionErrorCode } from '../errors.js'
import type { SessionEvent } from '../log/events.js'
import type { Session } from '../session.js'
import { SessionStore, sessionsPlugin } from './store.js'

const f = storePerTest()

function code(fn: () => unknown): string {
  const error = thrown(fn)
  expect(error).toBeInstanceOf(SessionError)
  return (error as SessionError).code
}

describe('create', () => {
  it('create: mints an id when omitted and uses the default cwd and the injected clock', () => {
    const s = f.sessions.create()
    expect(s.id).toBe('ses_1')
    expect(s.header).toEqual({ id: 'ses_1', createdAt: new Date(T0).toISOString(), cwd: '/work/project' })
  })

  it('create: the default id generator mints ses_ + time-ordered filename-safe ids', async () => {
    const ctx = new Context()
    ctx.plugin(sessionsPlugin, { clock: () => T0 })
    await ctx.start()
    const ids = [ctx.sessions.create().id, ctx.sessions.create().id]
    for (const id of ids) expect(id).toMatch(/^ses_[0-9a-z]{26}$/)
    expect(ids[0]).not.toBe(ids[1])
    await ctx.stop()
  })

  it('create: a valid seed becomes the log, deep-copied and frozen; meta sets the header', () => {
    const source = appendAll(f.sessions.create('a'), cleanTurn(1))
    const seed = JSON.parse(JSON.stringify(source.events())) as SessionEvent[]
    const s = f.sessions.create('b', {
      seed,
      meta: { cwd: '/x', title: 'T', seedLength: 11, parentSession: 'a' },
    })
    expect(s.events()).toEqual(source.events())
    expect(s.header).toMatchObject({ cwd: '/x', title: 'T', seedLength: 11, parentSession: 'a' })
    ;(seed[1] as { data: { turn: number } }).data.turn = 7
    expect(s.at(2)?.data).toMatchObject({ turn: 1 })
    expect(Object.isFrozen(s.at(2)?.data)).toBe(true)
    expect(s.append({ type: 'turn/start', data: { turn: 2 } }).seq).toBe(12)
  })

  it('create: a seed may end inside an open turn (it is a valid log prefix)', () => {
    const seed = appendAll(f.sessions.create('a'), cleanTurn(1)).events().slice(0, 5)
    const s = f.sessions.create('b', { seed })
    expect(s.openTurn).toBe(1)
    expect(s.unansweredCalls).toEqual(['call_1'])
  })

  it('INVALID_SEED: a seed that breaks an invariant, skips a seq, or is malformed is refused', () => {
    const good = appendAll(f.sessions.create('a'), cleanTurn(1)).events()
    const seeds: unknown[] = [
      good.slice(1),
      [good[0], good[2]],
      [...good, good[0]],
      [{ ...good[0], type: 'nope' }],
      [{ ...good[0], time: 5 }],
      [{ ...good[0], data: { turn: 1, when: new Date() } }],
      [null],
    ]
    for (const seed of seeds) {
      expect(code(() => f.sessions.create('b', { seed: seed as SessionEvent[] }))).toBe(
        SessionErrorCode.INVALID_SEED,
      )
      expect(f.sessions.get('b')).toBeUndefined()
    }
    const wrongLength = () => f.sessions.create('b', { seed: good, meta: { seedLength: 3 } })
    expect(code(wrongLength)).toBe(SessionErrorCode.INVALID_SEED)
  })

  it('INVALID_SESSION_ID: create refuses ids outside ^[A-Za-z0-9_-]{1,128}$', () => {
    for (const id of ['', 'a/b', '..', 'x'.repeat(129), 'ses 1']) {
      expect(code(() => f.sessions.create(id))).toBe(SessionErrorCode.INVALID_SESSION_ID)
    }
  })

  it('SESSION_ALREADY_EXISTS: create refuses a live id', () => {
    f.sessions.create('a')
    expect(code(() => f.sessions.create('a'))).toBe(SessionErrorCode.SESSION_ALREADY_EXISTS)
  })
})

describe('the cordis service', () => {
  it('plugging the store (ctx.plugin(sessionsPlugin, ...)) never calls fork and logs no internal/error', async () => {
    // Restored even when an expectation fails: the prototype is shared by the files run after this one.
    const spy = vi.spyOn(SessionStore.prototype, 'fork')
    const ctx = new Context()
    try {
      const errors: unknown[] = []
      ctx.on('internal/error', (error: unknown) => {
        errors.push(error)
      })
      ctx.plugin(sessionsPlugin, { defaultCwd: '/w' })
      await ctx.start()
      await ctx.lifecycle.flush()
      expect(spy).not.toHaveBeenCalled()
      expect(errors).toEqual([])
      expect(ctx.sessions).toBeInstanceOf(SessionStore)
    } finally {
      spy.mockRestore()
      await ctx.stop()
    }
  })

  it('lifecycle: session/created, appended events (onAppended), session/flush and session/disposed are emitted', async () => {
    const seen: string[] = []
    f.ctx.on('session/created', (s) => {
      seen.push(`created ${s.id} ${s.length}`)
    })
    f.sessions.onAppended((s, e) => {
      seen.push(`event ${s.id} ${e.seq} ${e.type}`)
    })
    f.ctx.on('session/flush', async (s) => {
      seen.push(`flush ${s.id}`)
    })
    f.ctx.on('session/disposed', (s, reason) => {
      seen.push(`disposed ${s.id} ${reason}`)
    })
    const s = f.sessions.create('a')
    s.append({ type: 'turn/start', data: { turn: 1 } })
    s.append({ type: 'turn/end', data: { turn: 1, reason: 'cancelled' } })
    f.sessions.fork(s, 2, 'b')
    await f.sessions.flush('a')
    await f.sessions.close('a')
    await f.sessions.delete('b')
    expect(seen).toEqual([
      'created a 0',
      'event a 1 turn/start',
      'event a 2 turn/end',
      'created b 2',
      'flush a',
      'flush a',
      'disposed a closed',
      'disposed b deleted',
    ])
  })

  it('lifecycle: stopping the context disposes every live session', async () => {
    const reasons: string[] = []
    f.ctx.on('session/disposed', (s, reason) => {
      reasons.push(`${s.id} ${reason}`)
    })
    const a = f.sessions.create('a')
    f.sessions.create('b')
    await f.stop()
    expect(reasons).toEqual(['a stopped', 'b stopped'])
    expect(a.live).toBe(false)
    expect(code(() => a.append({ type: 'x:y', data: {} }))).toBe(SessionErrorCode.SESSION_NOT_LIVE)
  })

  it('injected clock and id generator make results deterministic', async () => {
    const run = async () => {
      const g = await startStore()
      const s = g.sessions.create(undefined, { meta: { cwd: '/d' } })
      g.tick(1500)
      appendAll(s, cleanTurn(1))
      g.tick(10)
      const child = g.sessions.fork(s)
      const out = { ids: [s.id, child.id], headers: [s.header, child.header], events: child.events() }
      await g.stop()
      return JSON.stringify(out)
    }
    const first = await run()
    expect(await run()).toBe(first)
    expect(first).toContain('"createdAt":"2026-01-01T00:00:01.510Z"')
  })
})

describe('durable create and fork', () => {
  it('createDurable and forkDurable let go of a session whose header could not be made durable', async () => {
    const failure = new SessionError(SessionErrorCode.PERSISTENCE_FAILED, 'disk full')
    const disposed: string[] = []
    f.ctx.on('session/disposed', (session) => {
      disposed.push(session.id)
    })
    f.ctx.on('session/flush', async () => {
      throw failure
    })
    await expect(f.sessions.createDurable('a')).rejects.toBe(failure)
    expect(f.sessions.get('a')).toBeUndefined()
    const source = f.sessions.create('src')
    await expect(f.sessions.forkDurable(source, 0, 'child')).rejects.toBe(failure)
    expect(f.sessions.get('child')).toBeUndefined()
    expect(disposed).toEqual(['a', 'child'])
  })
})

describe('get, close, list and load', () => {
  it('get returns the live session or undefined; close makes its object stale', async () => {
    const s = f.sessions.create('a')
    expect(f.sessions.get('a')).toBe(s)
    await f.sessions.close('a')
    expect(f.sessions.get('a')).toBeUndefined()
    expect(s.live).toBe(false)
    await expect(f.sessions.close('a')).rejects.toMatchObject({ code: SessionErrorCode.SESSION_NOT_FOUND })
  })

  it('list: live sessions newest first, filtered by cwd, paged by cursor and limit', async () => {
    const made: Session[] = []
    for (let i = 0; i < 5; i++) {
      made.push(f.sessions.create(`s${i}`, { meta: { cwd: i % 2 ? '/odd' : '/even' } }))
      f.tick()
    }
    const all = await f.sessions.list()
    expect(all.sessions.map((s) => s.sessionId)).toEqual(['s4', 's3', 's2', 's1', 's0'])
    expect(all.nextCursor).toBeUndefined()
    expect(all.sessions[0]).toMatchObject({ cwd: '/even', live: true })
    const even = await f.sessions.list({ cwd: '/even' })
    expect(even.sessions.map((s) => s.sessionId)).toEqual(['s4', 's2', 's0'])
    const seen: string[] = []
    let cursor: string | undefined
    do {
      const page = await f.sessions.list({ limit: 2, ...(cursor !== undefined && { cursor }) })
      expect(page.sessions.length).toBeLessThanOrEqual(2)
      seen.push(...page.sessions.map((s) => s.sessionId))
      cursor = page.nextCursor
    } while (cursor !== undefined)
    expect(seen).toEqual(['s4', 's3', 's2', 's1', 's0'])
    await expect(f.sessions.list({ cursor: 'garbage' })).rejects.toThrow(/cursor/)
    await expect(f.sessions.list({ limit: 0 })).rejects.toThrow(/limit/)
  })

  it('list: by last activity (updatedAt), so a session prompted again moves ahead of newer ones', async () => {
    const older = f.sessions.create('older')
    f.tick()
    f.sessions.create('newer')
    f.tick()
    expect((await f.sessions.list()).sessions.map((s) => s.sessionId)).toEqual(['newer', 'older'])
    appendAll(older, cleanTurn(1))
    const listed = (await f.sessions.list()).sessions
    expect(listed.map((s) => s.sessionId)).toEqual(['older', 'newer'])
    expect(listed[0]?.updatedAt).toBe(older.updatedAt)
    expect((listed[0]?.updatedAt ?? '') > (listed[1]?.updatedAt ?? '')).toBe(true)
    const first = await f.sessions.list({ limit: 1 })
    const second = await f.sessions.list({ limit: 1, cursor: first.nextCursor as string })
    expect([...first.sessions, ...second.sessions].map((s) => s.sessionId)).toEqual(['older', 'newer'])
  })

  it('list: each list shows the live sessions as they are now (after an append, a session admitted or let go)', async () => {
    const a = f.sessions.create('a')
    const first = await f.sessions.list()
    expect(first.sessions.map((s) => s.sessionId)).toEqual(['a'])
    const fresh = async () => {
      const page = await f.sessions.list()
      expect(page).not.toBe(first)
      return page
    }
    f.tick(1000)
    appendAll(a, cleanTurn(1, 'hello'))
    const afterAppend = await fresh()
    expect(afterAppend.sessions[0]?.title).toBe('hello')
    expect(afterAppend.sessions[0]?.updatedAt).not.toBe(first.sessions[0]?.updatedAt)
    f.sessions.create('b')
    expect((await f.sessions.list()).sessions.map((s) => s.sessionId)).toEqual(['b', 'a'])
    await f.sessions.close('b')
    expect((await f.sessions.list()).sessions.map((s) => s.sessionId)).toEqual(['a'])
    expect(await f.sessions.list({ cwd: '/elsewhere' })).toEqual({ sessions: [] })
  })

  it('list: a fork shows its lineage and current title', async () => {
    const s = appendAll(f.sessions.create('a'), cleanTurn(1))
    s.append({ type: 'session/title', data: { title: 'Named' } })
    f.tick()
    f.sessions.fork(s, 12, 'b')
    const [child] = (await f.sessions.list()).sessions
    expect(child).toMatchObject({ sessionId: 'b', parentSession: 'a', seedLength: 12, title: 'Named (fork)' })
  })

  it('load: without persistence a session that is not live is SESSION_NOT_FOUND', async () => {
    await expect(f.sessions.load('ghost')).rejects.toMatchObject({ code: SessionErrorCode.SESSION_NOT_FOUND })
  })
})
