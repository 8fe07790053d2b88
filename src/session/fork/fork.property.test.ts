import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { forkOracle as oracle } from '../../../test/support/fork-oracle.js'
import { startStore } from '../../../test/support/session-store.js'
import { LogModel, randomEventArbitrary, validLogArbitrary } from '../../../test/support/valid-log.js'
import { SessionError, SessionErrorCode, SessionForkError } from '../errors.js'
import type { AnyEventInput } from '../log/events.js'
import { projectHistory } from '../projection/history.js'
import { projectUpdates } from '../projection/updates.js'
import type { Session } from '../session.js'

/** Tries to change every field, element and array reachable from `value`; all must be refused. */
function tamper(value: unknown): void {
  if (typeof value !== 'object' || value === null) return
  const target = value as Record<string, unknown>
  for (const key of Object.keys(target)) {
    const inner = target[key]
    tamper(inner)
    try {
      target[key] = 'tampered'
    } catch {}
    try {
      delete target[key]
    } catch {}
  }
  try {
    target.injected = true
  } catch {}
  if (Array.isArray(value)) {
    try {
      value.push('tampered')
    } catch {}
  }
}

const snapshot = (s: Session) => JSON.stringify({ events: s.events(), header: s.header, lastSeq: s.lastSeq })

describe('fork over random valid logs', () => {
  it('for every boundary: fork succeeds exactly outside an open turn, copies the prefix, and both sides stay independent', async () => {
    await fc.assert(
      fc.asyncProperty(validLogArbitrary(50), async (inputs) => {
        const f = await startStore()
        try {
          const parent = f.sessions.create('parent', { meta: { cwd: '/p' } })
          for (const input of inputs) parent.append(input)
          const events = parent.events()
          const before = snapshot(parent)
          const { safe, lastSafe } = oracle(events)
          const children: [Session, string][] = []
          for (let b = 0; b <= parent.lastSeq; b++) {
            const prefix = events.slice(0, b)
            let child: Session
            try {
              child = f.sessions.fork(parent, b, `child_${b}`)
            } catch (error) {
              expect(error).toBeInstanceOf(SessionForkError)
              expect((error as SessionForkError).code).toBe(SessionErrorCode.OPEN_TURN)
              expect(safe[b]).toBe(false)
              const data = (error as SessionForkError).data
              expect(data.boundary).toBe(b)
              expect(data.lastSafeBoundary).toBe(lastSafe[b])
              const fallback = f.sessions.fork(parent, lastSafe[b], `safe_${b}`)
              expect(fallback.events()).toEqual(events.slice(0, lastSafe[b]))
              continue
            }
            expect(safe[b]).toBe(true)
            expect(child.events()).toEqual(prefix)
            expect(child.header).toMatchObject({ cwd: '/p', parentSession: 'parent', seedLength: b })
            expect(projectHistory(child.events())).toEqual(projectHistory(prefix))
            expect(projectUpdates(child.id, child.events())).toEqual(projectUpdates(child.id, prefix))
            // The child's seed events are what the parent holds too: tampering with them is
            // tampering with both sides.
            tamper(child.events())
            child.append({ type: 'turn/start', data: { turn: child.lastTurn + 1 } })
            tamper(child.append({ type: 'probe:child', data: { b, list: [b] } }))
            expect(snapshot(parent)).toBe(before)
            children.push([child, snapshot(child)])
          }
          tamper(parent.events())
          tamper(parent.append({ type: 'probe:parent', data: { list: [1] } }))
          if (parent.openTurn === undefined) {
            parent.append({ type: 'turn/start', data: { turn: parent.lastTurn + 1 } })
          }
          for (const [child, seen] of children) expect(snapshot(child)).toBe(seen)
        } finally {
          await f.stop()
        }
      }),
      { numRuns: 50 },
    )
  })

  it('the default boundary forks exactly when the whole log is outside an open turn', async () => {
    await fc.assert(
      fc.asyncProperty(validLogArbitrary(40), async (inputs) => {
        const f = await startStore()
        try {
          const parent = f.sessions.create('parent')
          for (const input of inputs) parent.append(input)
          const { safe } = oracle(parent.events())
          const outcome = (() => {
            try {
              return f.sessions.fork(parent).lastSeq
            } catch (error) {
              return (error as SessionError).code
            }
          })()
          expect(outcome).toBe(safe[parent.lastSeq] ? parent.lastSeq : SessionErrorCode.OPEN_TURN)
        } finally {
          await f.stop()
        }
      }),
      { numRuns: 60 },
    )
  })
})

describe('random appends', () => {
  it('the store accepts exactly the appends the independent model accepts; refused ones leave the log unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(
        validLogArbitrary(30),
        fc.array(randomEventArbitrary(), { minLength: 1, maxLength: 30 }),
        async (valid, randoms) => {
          const f = await startStore()
          try {
            const session = f.sessions.create('s')
            const model = new LogModel()
            for (const input of valid) {
              session.append(input)
              model.apply(input)
            }
            for (const input of randoms) {
              const expected = model.accepts(input)
              const before = snapshot(session)
              const state = [session.openTurn, session.openStep, session.unansweredCalls]
              let accepted: boolean
              try {
                session.append(input as AnyEventInput)
                accepted = true
              } catch (error) {
                expect(error).toBeInstanceOf(SessionError)
                expect((error as SessionError).code).toBe(SessionErrorCode.INVARIANT_VIOLATION)
                accepted = false
              }
              expect(accepted).toBe(expected)
              if (accepted) model.apply(input)
              else {
                expect(snapshot(session)).toBe(before)
                expect([session.openTurn, session.openStep, session.unansweredCalls]).toEqual(state)
              }
            }
          } finally {
            await f.stop()
          }
        },
      ),
      { numRuns: 100 },
    )
  })
})
