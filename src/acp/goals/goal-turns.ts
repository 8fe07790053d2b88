import type * as unstable from '@agentclientprotocol/sdk/unstable'
import { record } from '../../agent/goals/goal-control.js'
import type { GoalTurn } from '../../agent/goals/goal-turns.js'
import { SessionGoals } from '../../agent/goals/session-goals.js'
import { errorMessage } from '../../lib/error-message.js'
import {
  type ContentBlock,
  goalInfoUpdate,
  type Session,
  type SessionEvent,
  userMessage,
} from '../../session/index.js'
import type { CallContext } from '../call-context.js'
import { ErrorCode, ProtocolError } from '../errors.js'

/** Runs one prompt turn of the session (`runPromptTurn`), telling `onUserMessage` its message id. */
export type RunTurn = (
  prompt: readonly ContentBlock[],
  onUserMessage?: (messageId: string) => void,
) => Promise<unstable.PromptResponse>

/** The prompt's own turn, which the goal's turns follow: its prompt, how a turn runs, who hears its id. */
export interface FirstTurn {
  readonly prompt: readonly ContentBlock[]
  readonly run: RunTurn
  readonly onUserMessage?: ((messageId: string) => void) | undefined
}

/**
 * Runs `first.prompt` as a turn (`first.run`) and then, while the session's goal is active and not met, turns of the
 * agent's own toward it (each prompted with `goalPrompt`, shown to the client as a user message),
 * and answers with the last turn's response. After each turn the goal records what the turn did to
 * it (`SessionGoals.afterTurn`: its iterations, and `limited`, `blocked` or `paused` when the turn
 * hit the step limit, was refused, failed or was cancelled), shown as its `session_info_update`.
 * The agent starts no turn of its own once a cancel of the session came (the goal is paused), or
 * when prompts wait in the session's queue (they run first; the goal goes on after them). The
 * `goal_status` tool is offered to the turns while the goal is active.
 */
export async function keepToGoal(
  call: CallContext,
  session: Session,
  first: FirstTurn,
): Promise<unstable.PromptResponse> {
  const goals = call.agent.features.get(SessionGoals)
  const cancels = goals.cancelCount(session.id)
  const runTurn = first.run
  let turnPrompt = first.prompt
  let userMessage = first.onUserMessage
  for (;;) {
    await goals.prepareTurn(session)
    const startSeq = session.lastSeq
    let response: unstable.PromptResponse
    try {
      response = await runTurn(turnPrompt, userMessage)
    } catch (error) {
      if (error instanceof ProtocolError && error.code === ErrorCode.ModelFailed) {
        await afterTurn(call, session, { startSeq, end: 'error', errorMessage: errorMessage(error) })
      }
      throw error
    }
    const next = await afterTurn(call, session, { startSeq, end: response.stopReason })
    if (next === undefined || call.agent.queue.waiting(session.id).length > 0) return response
    if (goals.cancelCount(session.id) !== cancels) {
      await pauseCancelled(call, session)
      return response
    }
    turnPrompt = next
    userMessage = (messageId) => showGoalPrompt(call, session, next, messageId)
  }
}

/** Records what the turn did to the goal and shows it; the next turn's prompt when one follows. */
async function afterTurn(
  call: CallContext,
  session: Session,
  turn: GoalTurn,
): Promise<ContentBlock[] | undefined> {
  const pen = call.sessions.takePen(session)
  try {
    const after = call.agent.features.get(SessionGoals).afterTurn(session, turn)
    if (after.event) await showGoal(call, session, after.event)
    if (call.agent.features.get(SessionGoals).current(session)?.status !== 'active')
      await call.agent.features.get(SessionGoals).withdraw(session.id)
    return after.prompt
  } finally {
    await pen.release()
  }
}

/** The goal, still active after a cancel came between two turns, is paused. */
async function pauseCancelled(call: CallContext, session: Session): Promise<void> {
  const pen = call.sessions.takePen(session)
  try {
    const goal = call.agent.features.get(SessionGoals).current(session)
    if (goal?.status !== 'active') return
    await showGoal(
      call,
      session,
      record(session, { ...goal, status: 'paused', lastReason: 'the work was cancelled' }),
    )
    await call.agent.features.get(SessionGoals).withdraw(session.id)
  } finally {
    await pen.release()
  }
}

/** Makes the goal's new state durable and shows it to this client (the others are shown it as it is appended). */
async function showGoal(call: CallContext, session: Session, event: SessionEvent): Promise<void> {
  await call.sessions.flush(session.id)
  void call.notify({
    sessionId: session.id,
    update: goalInfoUpdate(call.agent.features.get(SessionGoals).current(session)),
    _meta: { dsh: { seq: event.seq } },
  })
}

/** Shows this client the prompt of a turn the agent started for the goal, as a replay shows it. */
function showGoalPrompt(
  call: CallContext,
  session: Session,
  prompt: readonly ContentBlock[],
  messageId: string,
): void {
  void call.notify({
    sessionId: session.id,
    update: userMessage(messageId, prompt),
    _meta: { dsh: { seq: session.lastSeq } },
  })
}
