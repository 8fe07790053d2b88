import {
  GOAL_CLEARED,
  GOAL_UPDATED,
  type GoalData,
  type Session,
  type SessionEvent,
} from '../../session/index.js'
import { currentGoal } from './goal-state.js'

/** What a client may do to a session's goal (`_session/goal`'s `action`). */
export type GoalAction = 'set' | 'pause' | 'resume' | 'clear'

/** Why a goal action was refused (the log is untouched). */
export class GoalActionError extends Error {
  override name = 'GoalActionError'
}

/** The longest objective, in characters. */
export const MAX_OBJECTIVE_LENGTH = 20_000

/**
 * Applies `action` to the session's goal and returns the event it appended (`goal:updated` or
 * `goal:cleared`), or undefined when nothing changes (clearing no goal). The rules:
 * - `set {objective}`: a new goal, `active`, 0 iterations, created now (it replaces any goal);
 * - `pause`: an `active` goal becomes `paused` (the agent starts no turn for it);
 * - `resume`: a `paused`, `blocked`, `limited` or `complete` goal becomes `active` again, with a
 *   new iteration budget (its iterations are kept);
 * - `clear`: the goal is gone (`goal:cleared`).
 * Throws {@link GoalActionError} for `set` without an objective, `pause` of a goal that is not
 * active, `resume` of an active one or of none, and `pause` of none.
 */
export function applyGoalAction(
  session: Session,
  action: GoalAction,
  objective: string | undefined,
): SessionEvent | undefined {
  const goal = currentGoal(session)
  switch (action) {
    case 'set': {
      const text = objective?.trim() ?? ''
      if (text === '') throw new GoalActionError('set needs a non-empty objective')
      if (text.length > MAX_OBJECTIVE_LENGTH)
        throw new GoalActionError(`the objective is longer than ${MAX_OBJECTIVE_LENGTH} characters`)
      // No createdAt: the set's own event time (the store's clock) is when.
      return session.append({
        type: GOAL_UPDATED,
        data: {
          objective: text,
          status: 'active',
          iterations: 0,
          lastReason: 'set by the user',
          budgetFrom: 0,
        },
      })
    }
    case 'pause':
      if (goal === null) throw new GoalActionError('the session has no goal to pause')
      if (goal.status !== 'active') throw new GoalActionError(`the goal is ${goal.status}, not active`)
      return record(session, { ...goal, status: 'paused', lastReason: 'paused by the user' })
    case 'resume':
      if (goal === null) throw new GoalActionError('the session has no goal to resume')
      if (goal.status === 'active') throw new GoalActionError('the goal is already active')
      return record(session, {
        ...goal,
        status: 'active',
        lastReason: 'resumed by the user',
        budgetFrom: goal.iterations,
      })
    case 'clear':
      if (goal === null) return undefined
      return session.append({ type: GOAL_CLEARED, data: {} })
  }
}

/** Appends the goal's new state. */
export function record(session: Session, goal: GoalData): SessionEvent {
  return session.append({ type: GOAL_UPDATED, data: { ...goal } })
}
