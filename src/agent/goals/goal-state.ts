import { type GoalData, goalOfEvent, type Session } from '../../session/index.js'
import { lastRecorded } from '../shared/last-recorded.js'

const recordedGoal = lastRecorded<GoalData | null>(goalOfEvent)

/**
 * The session's goal as its log says now: the data of its last `goal:updated`, or null (none was
 * set, or the last goal event is `goal:cleared`). A fork child's log holds its prefix, so it has
 * the goal its parent had at the boundary. Read once per session, then only what was appended
 * (anew after a rewind shortened the log).
 */
export function currentGoal(session: Session): GoalData | null {
  return recordedGoal(session) ?? null
}
