import type { Context } from 'cordis'
import { applyGoalAction, GoalActionError } from '../../agent/goals/goal-control.js'
import { SessionGoals } from '../../agent/goals/session-goals.js'
import { goalInfoUpdate, goalView } from '../../session/index.js'
import { ProtocolError } from '../errors.js'
import { checkedParams } from '../extension-params.js'
import { defineMethod } from '../method.js'
import { openSession } from '../requests/session-access.js'
import type { AcpServer } from '../server.js'
import { sendCaughtUp } from '../views/caught-up.js'
import { servesGoals } from './goal-gate.js'
import { validateGoalParams } from './wire-validators.gen.js'

const METHOD = '_session/goal'

/**
 * `_session/goal {sessionId, action, objective?}` → `{goal}` (the goal after the action; null: none):
 * sets, pauses, resumes or clears the session's goal (see `applyGoalAction`), durable before the
 * answer and shown to every client of the session as `session_info_update._meta.goal`. A set or
 * resume starts no turn by itself: the running turn, or the next prompt, works toward it, and the
 * agent goes on with turns of its own while it stays active (see `keepToGoal`). Bad params or an
 * action the goal's status refuses: -32602; unknown session: -32002; a connection that was not
 * offered the goal extension (ACP v2): -32601.
 */
export const sessionGoalMethod = defineMethod({
  name: METHOD,
  async handle(params: unknown, call) {
    if (!servesGoals(call.client)) throw ProtocolError.methodNotFound(METHOD)
    const { sessionId, action, objective } = checkedParams(METHOD, validateGoalParams, params)
    const session = await openSession(call, sessionId)
    const pen = call.sessions.takePen(session)
    try {
      await sendCaughtUp(call, session)
      // Not inside a model step's streamed text: its message keeps the seq its chunks announced.
      await call.streamPassed(sessionId)
      let event: ReturnType<typeof applyGoalAction>
      try {
        event = applyGoalAction(session, action, objective)
      } catch (error) {
        if (error instanceof GoalActionError) {
          throw ProtocolError.invalidParams(`${METHOD}: ${action}: ${error.message}`, { sessionId, action })
        }
        throw error
      }
      if (event !== undefined) {
        // Shown as soon as it is in the log: what is appended after it reaches this client after it.
        const goal = call.agent.features.get(SessionGoals).current(session)
        void call.notify({ sessionId, update: goalInfoUpdate(goal), _meta: { dsh: { seq: event.seq } } })
        await call.sessions.flush(sessionId)
      }
      if (call.agent.features.get(SessionGoals).current(session)?.status !== 'active')
        await call.agent.features.get(SessionGoals).withdraw(sessionId)
      const goal = call.agent.features.get(SessionGoals).current(session)
      return { goal: goal === null ? null : goalView(goal) }
    } finally {
      await pen.release()
    }
  },
})

/** Registers `_session/goal` on `server` for as long as `ctx` lives. */
export function registerGoalMethod(ctx: Context, server: AcpServer): void {
  ctx.on('dispose', server.register(sessionGoalMethod))
}
