import fc from 'fast-check'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { SessionErrorCode } from '../../src/session/errors.js'
import type { SessionSummary } from '../../src/session/header.js'
import type { SessionId } from '../../src/session/ids.js'
import type { SessionEvent } from '../../src/session/log/events.js'
import { compareByActivity } from '../../src/session/store/reads/paginate.js'
import { BACKENDS, type BackendHost, type BackendStore } from '../support/backends.js'
import { appendAll, appendTurn, shortTurn } from '../support/session-store.js'
import { validLogArbitrary } from '../support/valid-log.js'

// The persistence port's contract, proven the same way on every backend: what a store acknowledged
// (its flush resolved) is read back exactly by another host started on the same store.

const wire = (events: readonly SessionEvent[]) => events.map((e) => JSON.stringify(e))

describe.each(BACKENDS)('the $name backend', (backend) => {
  const opened: BackendStore[] = []
  const hosts: BackendHost[] = []
  const fresh = async () => {
    const store = await backend.fresh()
    opened.push(store)
    return store
  }
  const host = async (store: BackendStore, ...config: Parameters<BackendStore['start']>) => {
    const started = await store.start(...config)
    hosts.push(started)
    return started
  }
  afterEach(async () => {
    for (const h of hosts.splice(0)) await h.stop().catch(() => {})
    for (const s of opened.splice(0)) await s.cleanup()
  })

  beforeAll(() => backend.prepare?.(), 120_000)

  it('reads back every acknowledged event exactly, seq contiguous from 1, in another host (property)', async () => {
    const store = await fresh()
    const a = await host(store)
    await fc.assert(
      fc.asyncProperty(validLogArbitrary(40), fc.nat({ max: 45 }), async (inputs, from) => {
        const session = await a.sessions.createDurable(undefined, { meta: { title: 'prop' } })
        appendAll(session, inputs)
        await a.sessions.flush(session.id)
        const written = wire(session.events())
        await a.sessions.close(session.id)
        const b = await host(store)
        const heard: SessionEvent[] = []
        const loaded = await b.sessions.load(session.id, (event) => {
          heard.push(event)
        })
        // A log left inside a turn is ended `interrupted` by the load (after what was stored).
        const ended = loaded.events().slice(written.length)
        expect(ended.map((e) => [e.type, (e.data as { reason?: string }).reason])).toEqual(
          session.openTurn === undefined ? [] : [['turn/end', 'interrupted']],
        )
        expect(wire(loaded.events()).slice(0, written.length)).toEqual(written)
        expect(wire(heard)).toEqual(written)
        expect(loaded.events().map((e) => e.seq)).toEqual(loaded.events().map((_, i) => i + 1))
        expect(loaded.header).toEqual(session.header)
        // The turn end the load appended is acknowledged once flushed, like any append.
        await b.sessions.flush(session.id)
        const visited: SessionEvent[] = []
        await b.persistence.visit?.(session.id, from, (event) => {
          visited.push(event)
          return true
        })
        expect(wire(visited)).toEqual(wire(loaded.events()).slice(Math.max(0, from - 1)))
        await b.stop()
      }),
      { numRuns: 12 },
    )
  })

  it('appends of a loaded session continue its seq, and survive a restart', async () => {
    const store = await fresh()
    const a = await host(store)
    const session = await a.sessions.createDurable()
    appendTurn(session, 'one')
    await a.sessions.close(session.id)
    const again = await a.sessions.load(session.id)
    appendTurn(again, 'two')
    await a.sessions.flush(again.id)
    const b = await host(store)
    const loaded = await b.sessions.load(session.id)
    expect(loaded.events().map((e) => e.seq)).toEqual([...Array(12).keys()].map((i) => i + 1))
    expect(loaded.lastTurn).toBe(2)
  })

  it('forks at every turn boundary: the child is whole after a restart, its parent untouched (property)', async () => {
    const store = await fresh()
    const a = await host(store)
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.nat(),
        fc.integer({ min: 0, max: 2 }),
        async (turns, pick, own) => {
          const parent = await a.sessions.createDurable()
          for (let t = 1; t <= turns; t++) appendTurn(parent, `p${t}`)
          const boundary = 6 * (1 + (pick % turns))
          const child = await a.sessions.forkDurable(parent, boundary)
          for (let t = 0; t < own; t++) appendTurn(child, `c${t}`)
          appendTurn(parent, 'after the fork')
          await a.sessions.flush()
          const expectedChild = wire(child.events())
          const expectedParent = wire(parent.events())
          const b = await host(store)
          expect(wire((await b.sessions.load(child.id)).events())).toEqual(expectedChild)
          expect(wire((await b.sessions.load(parent.id)).events())).toEqual(expectedParent)
          expect(expectedChild.slice(0, boundary)).toEqual(expectedParent.slice(0, boundary))
          await a.sessions.closeAll()
          await b.stop()
        },
      ),
      { numRuns: 8 },
    )
  })

  it('a fork refused for a taken child id leaves nothing new and the taken session untouched', async () => {
    const store = await fresh()
    const a = await host(store)
    const parent = await a.sessions.createDurable()
    appendTurn(parent, 'p')
    const taken = await a.sessions.createDurable(undefined, { meta: { title: 'taken' } })
    appendTurn(taken, 'mine')
    await a.sessions.close(taken.id)
    await a.sessions.flush()
    const before = await a.sessions.list({ archived: 'include' })
    await expect(a.sessions.forkDurable(parent, 6, taken.id)).rejects.toMatchObject({
      code: SessionErrorCode.SESSION_ALREADY_EXISTS,
    })
    const b = await host(store)
    const after = await b.sessions.list({ archived: 'include' })
    expect(after.sessions.map((s) => s.sessionId).sort()).toEqual(
      before.sessions.map((s) => s.sessionId).sort(),
    )
    const loaded = await b.sessions.load(taken.id)
    expect(loaded.title).toBe('taken')
    expect(loaded.length).toBe(6)
  })

  it('reports a damaged event as CORRUPT_SESSION naming its seq, never skipping it', async () => {
    const store = await fresh()
    const a = await host(store)
    const session = await a.sessions.createDurable()
    appendTurn(session, 'one')
    appendTurn(session, 'two')
    await a.sessions.close(session.id)
    await a.stop()
    await store.damage(session.id, 4, JSON.stringify({ seq: 9, type: 'step/end', time: 'x', data: {} }))
    const b = await host(store)
    await expect(b.sessions.load(session.id)).rejects.toMatchObject({
      code: SessionErrorCode.CORRUPT_SESSION,
    })
    await expect(b.sessions.visitEvents(session.id, 1, () => true)).rejects.toMatchObject({
      code: SessionErrorCode.CORRUPT_SESSION,
    })
    // Still listed: a bad session is not made to vanish.
    expect((await b.sessions.list()).sessions.map((s) => s.sessionId)).toContain(session.id)
  })

  it('reports a missing event as CORRUPT_SESSION, never closing the gap', async () => {
    const store = await fresh()
    const a = await host(store)
    const session = await a.sessions.createDurable()
    appendTurn(session, 'one')
    appendTurn(session, 'two')
    await a.sessions.close(session.id)
    await a.stop()
    await store.lose(session.id, 5)
    const b = await host(store)
    await expect(b.sessions.load(session.id)).rejects.toMatchObject({
      code: SessionErrorCode.CORRUPT_SESSION,
    })
  })

  it('lists by most recent activity, paging through every session once, with the cwd and archive filters (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ at: fc.nat({ max: 5 }), cwd: fc.constantFrom('/a', '/b'), archived: fc.boolean() }),
          {
            minLength: 1,
            maxLength: 9,
          },
        ),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        async (specs, limit, closeThem) => {
          const store = await fresh()
          let now = Date.UTC(2026, 0, 1)
          const a = await host(store, { clock: () => now })
          const made: SessionId[] = []
          for (const spec of specs) {
            now = Date.UTC(2026, 0, 1) + spec.at * 1000
            const session = await a.sessions.createDurable(undefined, { meta: { cwd: spec.cwd } })
            appendTurn(session, `s${made.length}`)
            if (spec.archived) session.append({ type: 'session/archived', data: { archived: true } })
            await a.sessions.flush(session.id)
            if (closeThem) await a.sessions.close(session.id)
            made.push(session.id)
          }
          const b = await host(store)
          for (const viewer of [a, b]) {
            for (const filter of [
              {},
              { cwd: '/a' },
              { archived: 'only' as const },
              { archived: 'include' as const, cwd: '/b' },
            ]) {
              const seen: SessionSummary[] = []
              let cursor: string | undefined
              do {
                const page = await viewer.sessions.list({
                  ...filter,
                  limit,
                  ...(cursor !== undefined && { cursor }),
                })
                expect(page.sessions.length).toBeLessThanOrEqual(limit)
                seen.push(...page.sessions)
                cursor = page.nextCursor
              } while (cursor !== undefined)
              const expected = specs
                .map((spec, i) => ({ spec, id: made[i] as SessionId }))
                .filter(({ spec }) => ('cwd' in filter ? spec.cwd === filter.cwd : true))
                .filter(({ spec }) =>
                  filter.archived === 'only'
                    ? spec.archived
                    : filter.archived === 'include'
                      ? true
                      : !spec.archived,
                )
                .map(({ id }) => id)
              expect(seen.map((s) => s.sessionId).sort()).toEqual([...expected].sort())
              expect([...seen].sort(compareByActivity)).toEqual(seen)
            }
          }
          await a.stop()
          await b.stop()
        },
      ),
      { numRuns: 6 },
    )
  })

  it('lists the title, the archive state and the cost a session had when it was written', async () => {
    const store = await fresh()
    const a = await host(store)
    const session = await a.sessions.createDurable()
    appendAll(session, shortTurn(1, 'What is the plan?'))
    session.append({ type: 'session/title', data: { title: 'The plan' } })
    await a.sessions.close(session.id)
    const b = await host(store)
    const [listed] = (await b.sessions.list()).sessions
    expect(listed).toMatchObject({ sessionId: session.id, title: 'The plan', live: false })
    expect(listed?.archived).toBeUndefined()
  })

  it('removes a session: gone from the list and from loads; a fork child of it stays whole', async () => {
    const store = await fresh()
    const a = await host(store)
    const parent = await a.sessions.createDurable()
    appendTurn(parent, 'one')
    appendTurn(parent, 'two')
    const child = await a.sessions.forkDurable(parent, 6)
    appendTurn(child, 'child')
    const grandchild = await a.sessions.forkDurable(child, 12)
    await a.sessions.flush()
    const childEvents = wire(child.events())
    const grandchildEvents = wire(grandchild.events())
    await a.sessions.close(child.id)
    await a.sessions.close(grandchild.id)
    await a.sessions.delete(parent.id)
    await expect(a.sessions.delete(parent.id)).rejects.toMatchObject({
      code: SessionErrorCode.SESSION_NOT_FOUND,
    })
    const b = await host(store)
    await expect(b.sessions.load(parent.id)).rejects.toMatchObject({
      code: SessionErrorCode.SESSION_NOT_FOUND,
    })
    expect((await b.sessions.list()).sessions.map((s) => s.sessionId)).not.toContain(parent.id)
    expect(wire((await b.sessions.load(child.id)).events())).toEqual(childEvents)
    await b.sessions.close(child.id)
    await b.sessions.delete(child.id)
    expect(wire((await b.sessions.load(grandchild.id)).events())).toEqual(grandchildEvents)
  })

  it('rewinds: the session keeps its prefix, the archived branch all of it, children stay whole (property)', async () => {
    const store = await fresh()
    const a = await host(store)
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 4 }), fc.nat(), fc.nat(), async (turns, at, forkAt) => {
        const session = await a.sessions.createDurable()
        for (let t = 1; t <= turns; t++) appendTurn(session, `t${t}`)
        const boundary = 6 * (1 + (at % (turns - 1)))
        const child = await a.sessions.forkDurable(session, 6 * (1 + (forkAt % turns)))
        await a.sessions.close(child.id)
        const childEvents = wire(child.events())
        const before = wire(session.events())
        const result = await a.sessions.rewind(session, boundary)
        appendTurn(result.session, 'after')
        await a.sessions.flush()
        const after = wire(result.session.events())
        const b = await host(store)
        expect(wire((await b.sessions.load(session.id)).events())).toEqual(after)
        expect(after.slice(0, boundary)).toEqual(before.slice(0, boundary))
        const branch = await b.sessions.load(result.branch.sessionId)
        expect(wire(branch.events()).slice(0, before.length)).toEqual(before)
        expect(branch.archived).toBe(true)
        expect(wire((await b.sessions.load(child.id)).events())).toEqual(childEvents)
        await a.sessions.closeAll()
        await b.stop()
      }),
      { numRuns: 8 },
    )
  })
})
