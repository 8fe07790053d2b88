import type { ContentBlock, GoalData, GoalStatus, Session, SessionEvent } from '../../session/index.js'
import { record } from './goal-control.js'
import { currentGoal } from './goal-state.js'
import { GOAL_STATUS_TOOL } from './goal-tool.js'

/** How a turn worked toward a goal ended, in ACP's words (`error`: the model failed). */
export type GoalTurnEnd = 'end_turn' | 'max_tokens' | 'max_turn_requests' | 'refusal' | 'cancelled' | 'error'

/** A turn that ran while the goal was active: where it began, how it ended, what failed. */
export interface GoalTurn {
  /** The session's last seq before the turn began. */
  readonly startSeq: number
  readonly end: GoalTurnEnd
  /** What failed, for an `error` end. */
  readonly errorMessage?: string
}

/** What the limits of a goal's work are. */
export interface GoalLimits {
  /** Turns one goal may take (counted from its last set or resume) before it is `limited`. */
  readonly maxIterations: number
  /** Model requests per turn (the agent's `maxSteps`), for the reason a turn that hit it gives. */
  readonly maxSteps: number
}

/** What follows a turn: the goal event it appended (if any), and whether another turn goes on. */
export interface AfterGoalTurn {
  readonly event?: SessionEvent
  readonly goOn: boolean
}

/**
 * Records what a turn that ran while the goal was active did to it, once the turn has ended
 * (see {@link GoalTurn}). The turn counts as one iteration.
 * - the goal was changed during the turn: the model's `goal_status` or the user's pause or clear
 *   holds (no turn follows); a goal the user set or resumed then is active and a turn follows
 *   (unless this one stopped otherwise); nothing more is written;
 * - `end_turn` or `max_tokens` with the goal still active: another turn follows, unless the
 *   iterations since the last set or resume reach `maxIterations` (then `limited`);
 * - `max_turn_requests` (the step limit): `limited`; `refusal` or `error`: `blocked`;
 *   `cancelled`: `paused` (the user stopped the work; `resume` goes on).
 * Undefined goal (no goal, or not active when the turn began): nothing is written, no turn follows.
 */
export function afterGoalTurn(session: Session, turn: GoalTurn, limits: GoalLimits): AfterGoalTurn {
  const goal = currentGoal(session)
  if (goal === null || goal.status !== 'active') return { goOn: false }
  // Set or resumed anew while the turn ran (the model's own verdict would have left it inactive):
  // the new goal starts with the next turn, this one is not counted toward it.
  if (changedSince(session, turn.startSeq))
    return { goOn: turn.end === 'end_turn' || turn.end === 'max_tokens' }
  const iterations = goal.iterations + 1
  const [status, lastReason] = verdict(goal, iterations, turn, limits)
  return { event: record(session, { ...goal, status, iterations, lastReason }), goOn: status === 'active' }
}

/** The goal's status after its `iterations`-th turn ended as `turn` says, and why. */
function verdict(
  goal: GoalData,
  iterations: number,
  { end, errorMessage }: GoalTurn,
  limits: GoalLimits,
): [GoalStatus, string] {
  switch (end) {
    case 'end_turn':
    case 'max_tokens': {
      const spent = iterations - (goal.budgetFrom ?? 0)
      if (spent < limits.maxIterations)
        return ['active', `turn ${iterations} ended without ${GOAL_STATUS_TOOL} saying the goal is met`]
      const turns = `${spent} ${spent === 1 ? 'turn' : 'turns'}`
      return ['limited', `${turns} without the goal met (the limit is ${limits.maxIterations})`]
    }
    case 'max_turn_requests':
      return ['limited', `a turn reached the step limit (${limits.maxSteps} model requests)`]
    case 'refusal':
      return ['blocked', 'the model refused']
    case 'error':
      return ['blocked', `the model failed: ${errorMessage ?? 'error'}`]
    case 'cancelled':
      return ['paused', 'the turn was cancelled']
  }
}

/** Whether a goal event was appended after `seq`. */
function changedSince(session: Session, seq: number): boolean {
  return session
    .eventsAfter(seq)
    .some((event) => event.type === 'goal:updated' || event.type === 'goal:cleared')
}

/**
 * The prompt of a turn the agent starts itself to go on toward the goal: it names the objective
 * and how to say it is met or cannot be.
 */
export function goalPrompt(goal: GoalData): ContentBlock[] {
  return [
    {
      type: 'text',
      text: [
        `Keep working toward the session's goal: ${goal.objective}`,
        '',
        `This is turn ${goal.iterations + 1} of work toward it. When the goal is met, call ${GOAL_STATUS_TOOL} with status "complete" and say why; when you cannot go on without the user, call it with status "blocked" and say what you need. Otherwise continue the work.`,
      ].join('\n'),
    },
  ]
}
