import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { forkOracle } from '../../../test/support/fork-oracle.js'
import { startStore } from '../../../test/support/session-store.js'
import { validLogArbitrary } from '../../../test/support/valid-log.js'
import { projectHistory } from '../projection/history.js'
import { projectUpdates } from '../projection/updates.js'

const snapshot = (events: readonly unknown[]) => JSON.stringify(events)

describe('the subagent fork over random valid logs', () => {
  it('at every clip point (the parent cut after each event) copies exactly the oracle’s last safe prefix, as fork would at that boundary', async () => {
    await fc.assert(
      fc.asyncProperty(validLogArbitrary(50), async (inputs) => {
        const f = await startStore()
        try {
          const parent = f.sessions.create('parent', { meta: { cwd: '/p', title: 'Parent' } })
          const check = (b: number) => {
            const events = parent.events()
            const { safe, lastSafe } = forkOracle(events)
            const clip = lastSafe[b] as number
            const before = snapshot(events)
            const title = parent.explicitTitle
            const child = f.sessions.forkSubagent(parent, {
              turn: Math.max(1, parent.lastTurn),
              callId: `c${b}`,
            })
            expect(snapshot(parent.events())).toBe(before)
            expect(child.events()).toEqual(events.slice(0, clip))
            if (safe[b]) expect(clip).toBe(b)
            expect(child.header).toEqual({
              id: child.id,
              createdAt: child.header.createdAt,
              cwd: '/p',
              title,
              parentSession: 'parent',
              seedLength: clip,
              subagent: { turn: Math.max(1, parent.lastTurn), callId: `c${b}` },
            })
            expect(child.openTurn).toBeUndefined()
            expect(child.unansweredCalls).toEqual([])
            // The same prefix fork copies at the clip point, and fork accepts that boundary.
            const forked = f.sessions.fork(parent, clip)
            expect(child.events()).toEqual(forked.events())
            expect(projectHistory(child.events())).toEqual(projectHistory(events.slice(0, clip)))
            expect(projectUpdates(child.id, child.events())).toEqual(
              projectUpdates(child.id, events.slice(0, clip)),
            )
            // The child goes on with a turn of its own, leaving the parent untouched.
            child.append({ type: 'turn/start', data: { turn: child.lastTurn + 1 } })
            child.append({
              type: 'user/message',
              data: { turn: child.lastTurn, content: [{ type: 'text', text: 'task' }] },
            })
            child.append({ type: 'turn/end', data: { turn: child.lastTurn, reason: 'completed' } })
            expect(snapshot(parent.events())).toBe(before)
            expect(f.sessions.get(child.id)).toBe(child)
          }
          check(0)
          for (const input of inputs) {
            parent.append(input)
            check(parent.lastSeq)
          }
        } finally {
          await f.stop()
        }
      }),
      { numRuns: 40 },
    )
  })
})
