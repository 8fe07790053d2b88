import {
  CLEAN_TURN_END_REASONS,
  type SessionUpdate,
  type SubagentState,
  subagentProgressUpdate,
} from '../../session/index.js'
import { MODEL_FAILED_CODE } from '../errors.js'
import type { SubagentLink, TurnOutcome } from '../types.js'

/**
 * What a delegation says on its parent, in its canonical form: the `subagent_update` announcing the
 * child (title, the task as description, `running`), then the parent's delegate call marked
 * `in_progress` with the child's title and session id. A client's view shows the first only to a
 * client with the unstable `subagents` capability; the second to every client.
 */
export function subagentStarted(link: SubagentLink): SessionUpdate[] {
  return [subagentAnnouncement(link), subagentProgressUpdate(link)]
}

/** The `subagent_update` that announces a child: its title, the task as description, `running`. */
export function subagentAnnouncement(child: {
  readonly sessionId: string
  readonly title: string
  readonly task: string
}): SessionUpdate {
  return {
    sessionUpdate: 'subagent_update',
    sessionId: child.sessionId,
    title: child.title,
    description: child.task,
    state: { state: 'running' },
  }
}

/** A `subagent_update` that gives a child's state and leaves the rest as it was. */
export function subagentStateUpdate(sessionId: string, state: SubagentState): SessionUpdate {
  return { sessionUpdate: 'subagent_update', sessionId, state }
}

/** Turn end reasons that have an ACP stop reason of their own (besides `error`). */
const REPORTED_END_REASONS: ReadonlySet<string> = new Set([...CLEAN_TURN_END_REASONS, 'cancelled'])

/**
 * The `idle` state a child's ended turn reports: its stop reason, or `error` with what failed. A
 * turn cut short otherwise (`interrupted` by a crash, `disposed` at shutdown) reports no stop
 * reason (ACP: not reported), its `turn/end` reason in `_meta.dsh.endReason`.
 */
export function idleState(outcome: TurnOutcome): SubagentState {
  if (outcome.error !== undefined) {
    return {
      state: 'idle',
      stopReason: 'error',
      error: { code: MODEL_FAILED_CODE, message: `the model failed: ${outcome.error}` },
    }
  }
  if (!REPORTED_END_REASONS.has(outcome.endReason))
    return { state: 'idle', _meta: { dsh: { endReason: outcome.endReason } } }
  return { state: 'idle', stopReason: outcome.stopReason }
}
