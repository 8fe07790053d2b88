import { goalInfoUpdate, type SessionStore } from '../../session/index.js'
import { defineTool } from '../tools/define-tool.js'
import { stringField, type Tool, ToolFailure } from '../tools/tool.js'
import { record } from './goal-control.js'
import { currentGoal } from './goal-state.js'

/** The name the model calls the goal tool by. */
export const GOAL_STATUS_TOOL = 'goal_status'

/** The longest reason the model may give, in characters. */
const MAX_REASON_LENGTH = 2000

/**
 * `goal_status {status: "complete" | "blocked", reason}`: how the model says the session's goal is
 * met, or cannot be worked on without the user. Offered only to the turns of `sessionId` while its
 * goal is active (see `SessionGoals`); a call from another session (a subagent) or when no goal is
 * active fails. It records the goal's new status as a `goal:updated` event (counting the running
 * turn as an iteration), shown as the goal's `session_info_update`; the agent then starts no
 * further turn for the goal. It changes nothing outside the session, so it never asks.
 */
export function goalStatusTool(sessions: () => SessionStore, sessionId: string): Tool {
  return defineTool({
    spec: {
      name: GOAL_STATUS_TOOL,
      description:
        'Report on the goal the user set for this session. Call it with status "complete" once the goal is met (the reason says how), or "blocked" when you cannot go on without the user (the reason says what you need). Until you call it, you are asked to keep working toward the goal.',
      inputSchema: {
        type: 'object',
        properties: {
          status: { type: 'string', enum: ['complete', 'blocked'] },
          reason: { type: 'string', minLength: 1, maxLength: MAX_REASON_LENGTH },
        },
        required: ['status', 'reason'],
        additionalProperties: false,
      },
    },
    kind: 'think',
    effect: 'read',
    title: (input) => (stringField(input, 'status') === 'blocked' ? 'Goal blocked' : 'Goal complete'),
    async run(input, context) {
      if (context.sessionId !== sessionId)
        throw new ToolFailure('Only the session that has the goal can report on it.')
      const session = sessions().require(sessionId)
      const goal = currentGoal(session)
      if (goal === null || goal.status !== 'active')
        throw new ToolFailure('No goal is active in this session.')
      const event = record(session, {
        ...goal,
        status: input.status,
        iterations: goal.iterations + 1,
        lastReason: input.reason,
      })
      const data = currentGoal(session)
      context.sendUpdate?.(goalInfoUpdate(data), event.seq)
      return {
        output:
          input.status === 'complete'
            ? 'The goal is recorded as complete.'
            : 'The goal is recorded as blocked; the user will be asked.',
      }
    },
  })
}
