import type { Session } from '../../session/index.js'
import { callInOrder } from '../shared/call-in-order.js'

/**
 * Work a slash command leaves for after its turn (a `/rewind` cannot rewind while its own turn is
 * open): run by the agent once the turn's `turn/end` is durable, before the prompt is answered.
 */
const deferred = new WeakMap<Session, (() => Promise<void>)[]>()

/** Queues `task` to run once the turn running on `session` has ended and is durable. */
export function afterTurnEnds(session: Session, task: () => Promise<void>): void {
  const tasks = deferred.get(session)
  if (tasks) tasks.push(task)
  else deferred.set(session, [task])
}

/**
 * Runs (in order; when the turn `completed`, else only forgets them) and forgets what was queued
 * for `session`; the first failure rejects, after all ran.
 */
export async function runAfterTurn(session: Session, completed: boolean): Promise<void> {
  const tasks = deferred.get(session)
  if (!tasks) return
  deferred.delete(session)
  if (!completed) return
  await callInOrder(tasks)
}
