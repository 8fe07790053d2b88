import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SessionErrorCode, SessionForkError } from '../../src/session/index.js'
import type { AnyEventInput, SessionEvent } from '../../src/session/log/events.js'
import { projectHistory } from '../../src/session/projection/history.js'
import { forkOracle } from '../support/fork-oracle.js'
import { appendAll, appendTurn, startStore, tempDir } from '../support/session-store.js'
import { validLogArbitrary } from '../support/valid-log.js'

let store: ReturnType<typeof tempDir>
beforeEach(() => {
  store = tempDir('dsh-rewind-')
})
afterEach(() => store.cleanup())

/** A generated log, closed: an open turn at its end gets a `turn/end` (cancelled). */
function closed(inputs: AnyEventInput[]): AnyEventInput[] {
  let open: number | undefined
  for (const input of inputs) {
    const turn = (input.data as { turn?: number }).turn
    if (input.type === 'turn/start') open = turn
    if (input.type === 'turn/end') open = undefined
  }
  return open === undefined
    ? inputs
    : [...inputs, { type: 'turn/end', data: { turn: open, reason: 'cancelled' } }]
}

const strip = (events: readonly SessionEvent[]) => events.map(({ seq, type, data }) => ({ seq, type, data }))

describe('rewind over random valid logs, on disk', () => {
  it('for every closed boundary: rewind then load equals fork there then load; the branch is the log as it was, archived, forkable anywhere', async () => {
    await fc.assert(
      fc.asyncProperty(validLogArbitrary(24), async (generated) => {
        const inputs = closed(generated)
        const run = tempDir('dsh-rewind-run-')
        const first = await startStore(run.dir)
        const probe = appendAll(first.sessions.create('probe'), inputs)
        const { safe } = forkOracle(probe.events())
        const boundaries = safe.flatMap((ok, b) => (ok && b < probe.lastSeq ? [b] : []))
        const cases: { b: number; before: SessionEvent[]; branch: string }[] = []
        for (const b of boundaries) {
          const session = appendAll(first.sessions.create(`s_${b}`, { meta: { cwd: '/p' } }), inputs)
          await first.sessions.flush(session.id)
          const before = session.events()
          await first.sessions.forkDurable(session, b, `f_${b}`)
          const result = await first.sessions.rewind(session, b, { branchId: `b_${b}` })
          // The kept events, then the rewind's marker (generation 1, the branch, the boundary).
          expect(result.session.events().slice(0, b)).toEqual(before.slice(0, b))
          expect(result.session.events().slice(b)).toMatchObject([
            { seq: b + 1, type: 'rewind:marker', data: { generation: 1, branch: `b_${b}`, boundary: b } },
          ])
          expect(result.removed).toBe(before.length - b)
          expect(result.session.id).toBe(`s_${b}`)
          expect(session.live).toBe(false)
          cases.push({ b, before, branch: result.branch.sessionId })
        }
        await first.stop()

        const second = await startStore(run.dir)
        try {
          for (const { b, before, branch } of cases) {
            const rewound = await second.sessions.load(`s_${b}`)
            const forked = await second.sessions.load(`f_${b}`)
            expect(strip(rewound.events().slice(0, b))).toEqual(strip(forked.events()))
            expect(rewound.events()[b]?.type).toBe('rewind:marker')
            expect(projectHistory(rewound.events())).toEqual(projectHistory(forked.events()))
            expect(rewound.header).not.toHaveProperty('parentSession')
            const kept = await second.sessions.load(branch)
            const events = kept.events()
            expect(strip(events.slice(0, before.length))).toEqual(strip(before))
            expect(events[events.length - 1]).toMatchObject({
              type: 'session/archived',
              data: { archived: true },
            })
            expect(kept.header).toMatchObject({ parentSession: `s_${b}`, seedLength: b, cwd: '/p' })
            expect(kept.title?.endsWith('(before rewind)')).toBe(true)
            // The branch's first b lines are the rewound session's bytes, as a fork child's are.
            const lines = (id: string) => readFileSync(join(run.dir, `${id}.jsonl`), 'utf8').split('\n')
            expect(lines(branch).slice(1, b + 1)).toEqual(lines(`s_${b}`).slice(1, b + 1))
            // Forkable at each of its closed boundaries.
            const { safe } = forkOracle(events)
            for (let at = 0; at <= kept.lastSeq; at++) {
              if (!safe[at]) continue
              const child = second.sessions.fork(kept, at)
              expect(child.events()).toEqual(events.slice(0, at))
            }
          }
        } finally {
          await second.stop()
          run.cleanup()
        }
      }),
      { numRuns: 12 },
    )
  })
})

describe('rewind', () => {
  it('a second rewind keeps a second branch; each holds the history as it was then', async () => {
    const f = await startStore(store.dir)
    const session = f.sessions.create('s')
    for (const text of ['one', 'two', 'three']) appendTurn(session, text)
    const all = session.events()
    const r1 = await f.sessions.rewind(session, 12, { branchId: 'b1' })
    appendTurn(r1.session, 'two again')
    const middle = r1.session.events()
    const r2 = await f.sessions.rewind(r1.session, 6, { branchId: 'b2' })
    expect(r2.session.events().slice(0, 6)).toEqual(all.slice(0, 6))
    // The second rewind's marker numbers generation 2, though it removed the first's.
    expect(r2.session.events().slice(6)).toMatchObject([{ type: 'rewind:marker', data: { generation: 2 } }])
    await f.stop()
    const g = await startStore(store.dir)
    expect(strip((await g.sessions.load('b1')).events().slice(0, all.length))).toEqual(strip(all))
    expect(strip((await g.sessions.load('b2')).events().slice(0, middle.length))).toEqual(strip(middle))
    expect(strip((await g.sessions.load('s')).events()).slice(0, 6)).toEqual(strip(all.slice(0, 6)))
    const titles = (await g.sessions.list({ archived: 'include' })).sessions.map((s) => [
      s.sessionId,
      s.title,
    ])
    expect(titles).toContainEqual(['b1', 'one (before rewind)'])
    expect(titles).toContainEqual(['b2', 'one (before rewind)'])
    await g.stop()
  })

  it('refuses a running turn, a boundary inside a turn, and one inside an inherited fork seed; nothing changes', async () => {
    const f = await startStore(store.dir)
    const session = f.sessions.create('s')
    appendTurn(session, 'one')
    appendTurn(session, 'two')
    const code = async (promise: Promise<unknown>) =>
      promise.then(
        () => 'resolved',
        (error) => (error instanceof SessionForkError ? error.code : String(error)),
      )
    expect(await code(f.sessions.rewind(session, 8))).toBe(SessionErrorCode.OPEN_TURN)
    const child = await f.sessions.forkDurable(session, 12, 'child')
    expect(await code(f.sessions.rewind(child, 6))).toBe(SessionErrorCode.INVALID_BOUNDARY)
    session.append({ type: 'turn/start', data: { turn: 3 } })
    expect(await code(f.sessions.rewind(session, 6))).toBe(SessionErrorCode.OPEN_TURN)
    expect(session.length).toBe(13)
    expect((await f.sessions.list()).sessions.map((s) => s.sessionId).sort()).toEqual(['child', 's'])
    await f.stop()
  })

  it('holds the session while it rewinds: an append meanwhile is refused, not lost', async () => {
    const f = await startStore(store.dir)
    const session = f.sessions.create('s')
    appendTurn(session, 'one')
    appendTurn(session, 'two')
    const rewinding = f.sessions.rewind(session, 6, { branchId: 'b' })
    expect(() => session.append({ type: 'context/note', data: { text: 'late' } })).toThrow(/being rewound/)
    const { session: next } = await rewinding
    next.append({ type: 'context/note', data: { text: 'after' } })
    await f.stop()
    const g = await startStore(store.dir)
    const loaded = await g.sessions.load('s')
    expect(loaded.events().map((e) => e.type)).toEqual([
      ...session
        .events()
        .slice(0, 6)
        .map((e) => e.type),
      'rewind:marker',
      'context/note',
    ])
    await g.stop()
  })
})
