import { type GoalData, goalOfEvent, type Session } from '../../session/index.js'

interface FoldedGoal {
  /** The seq of the last event folded in. */
  through: number
  goal: GoalData | null
}

const folded = new WeakMap<Session, FoldedGoal>()

/**
 * The session's goal as its log says now: the data of its last `goal:updated`, or null (none was
 * set, or the last goal event is `goal:cleared`). A fork child's log holds its prefix, so it has
 * the goal its parent had at the boundary. Folded once per session, then only what was appended.
 */
export function currentGoal(session: Session): GoalData | null {
  let state = folded.get(session)
  if (!state) {
    state = { through: 0, goal: null }
    folded.set(session, state)
  }
  if (state.through < session.lastSeq) {
    for (const event of session.eventsAfter(state.through)) {
      const goal = goalOfEvent(event)
      if (goal !== undefined) state.goal = goal
    }
    state.through = session.lastSeq
  }
  return state.goal
}
