import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type StoreFixture, startStore } from '../../../test/support/session-store.js'
import { projectUpdates, type Session } from '../../session/index.js'
import { applyGoalAction, GoalActionError } from './goal-control.js'
import { currentGoal } from './goal-state.js'
import { afterGoalTurn, type GoalTurnEnd } from './goal-turns.js'

let store: StoreFixture
let session: Session
beforeEach(async () => {
  store = await startStore()
  session = store.sessions.create()
})
afterEach(() => store.stop())

const LIMITS = { maxIterations: 3, maxSteps: 8 }

/** One turn that ran while the goal was what it is, ended so. */
function turn(end: GoalTurnEnd) {
  const start = session.lastSeq
  const n = session.lastTurn + 1
  session.append({ type: 'turn/start', data: { turn: n } })
  session.append({ type: 'user/message', data: { turn: n, content: [{ type: 'text', text: 'go' }] } })
  session.append({
    type: 'turn/end',
    data: { turn: n, reason: end === 'cancelled' ? 'cancelled' : 'completed' },
  })
  return afterGoalTurn(
    session,
    { startSeq: start, end, ...(end === 'error' && { errorMessage: 'boom' }) },
    LIMITS,
  )
}

describe('session goals', () => {
  it('goes on after each end_turn until the iteration limit makes the goal limited', () => {
    applyGoalAction(session, 'set', 'finish it')
    expect([turn('end_turn').goOn, turn('max_tokens').goOn]).toEqual([true, true])
    const last = turn('end_turn')
    expect(last.goOn).toBe(false)
    expect(currentGoal(session)).toMatchObject({ status: 'limited', iterations: 3 })
    expect(currentGoal(session)?.lastReason).toContain('the limit is 3')
    // Resumed, it gets a new budget and keeps its count.
    applyGoalAction(session, 'resume', undefined)
    expect(turn('end_turn').goOn).toBe(true)
    expect(currentGoal(session)).toMatchObject({ status: 'active', iterations: 4 })
  })

  it('a refused, failed, cancelled or step-limited turn stops the work with its own status', () => {
    const cases: [GoalTurnEnd, string][] = [
      ['refusal', 'blocked'],
      ['error', 'blocked'],
      ['cancelled', 'paused'],
      ['max_turn_requests', 'limited'],
    ]
    for (const [end, status] of cases) {
      applyGoalAction(session, 'set', `goal for ${end}`)
      expect(turn(end)).toMatchObject({ goOn: false })
      expect(currentGoal(session)).toMatchObject({ status, iterations: 1 })
    }
  })

  it('no goal, or a paused one: nothing is written and no turn follows', () => {
    const seq = session.lastSeq
    expect(turn('end_turn')).toEqual({ goOn: false })
    applyGoalAction(session, 'set', 'x')
    applyGoalAction(session, 'pause', undefined)
    const before = session.lastSeq
    expect(turn('end_turn')).toEqual({ goOn: false })
    expect(session.eventsAfter(before).map((e) => e.type)).toEqual(['turn/start', 'user/message', 'turn/end'])
    expect(seq).toBeLessThan(before)
  })

  it('a goal set during a turn is worked on by the next one, which alone counts', () => {
    const start = session.lastSeq
    session.append({ type: 'turn/start', data: { turn: 1 } })
    applyGoalAction(session, 'set', 'new goal')
    session.append({ type: 'turn/end', data: { turn: 1, reason: 'completed' } })
    expect(afterGoalTurn(session, { startSeq: start, end: 'end_turn' }, LIMITS)).toEqual({ goOn: true })
    expect(currentGoal(session)).toMatchObject({ status: 'active', iterations: 0 })
  })

  it('refuses what the status does not allow; clear of no goal writes nothing; load and replay show it', () => {
    expect(() => applyGoalAction(session, 'pause', undefined)).toThrow(GoalActionError)
    expect(() => applyGoalAction(session, 'set', '   ')).toThrow(GoalActionError)
    expect(applyGoalAction(session, 'clear', undefined)).toBeUndefined()
    store.tick(86_400_000)
    applyGoalAction(session, 'set', 'x')
    expect(() => applyGoalAction(session, 'resume', undefined)).toThrow(GoalActionError)
    applyGoalAction(session, 'clear', undefined)
    expect(currentGoal(session)).toBeNull()
    const shown = projectUpdates(session.id, session.eventsAfter(0)).map(
      (n) => (n.update as { _meta?: unknown })._meta,
    )
    expect(shown).toEqual([
      {
        goal: {
          objective: 'x',
          status: 'active',
          iterations: 0,
          lastReason: 'set by the user',
          createdAt: '2026-01-02T00:00:00.000Z',
        },
      },
      { goal: null },
    ])
  })
})
