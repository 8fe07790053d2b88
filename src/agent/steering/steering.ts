import type { ContentBlock, Session } from '../../session/index.js'
import type { AgentFeature } from '../features/agent-feature.js'
import type { TurnHooks } from '../turn/turn-scope.js'
import type { TurnRequest } from '../types.js'
import { deliverSteers } from './steer-delivery.js'
import { SteerInbox, type SteerReceipt } from './steer-inbox.js'

/**
 * Steering (`_session/steering`, `_session/inject`, an ACP v2 prompt while a turn runs): the inbox of
 * each running turn, reached as `agent.features.get(Steering)`. A steer waits for the turn's next
 * safe point: after a step's tool results, before the next model request, where it is recorded as
 * a `user/message {steered: true}` (a step that would end the turn gets a next one instead).
 */
export class Steering {
  private readonly inboxes = new Map<string, SteerInbox>()

  /**
   * Steers the turn running on this session: `prompt` reaches its model at the next safe point;
   * `receipt` is told its message id once it is in the log, or that it was dropped (a cancel).
   * False, nothing kept, when no turn runs or it takes no more steers.
   */
  steer(sessionId: string, prompt: readonly ContentBlock[], receipt?: SteerReceipt): boolean {
    return this.inboxes.get(sessionId)?.offer(prompt, receipt) ?? false
  }

  /**
   * The hooks of a turn starting on `session`: its inbox, closed (what waits dropped) when `signal`
   * aborts or the turn's last step decided. A subagent's turn takes no steers: its parent's user
   * steers the parent.
   */
  turn(session: Session, request: TurnRequest, signal: AbortSignal): TurnHooks | undefined {
    if (request.subagent) return undefined
    const inbox = new SteerInbox()
    this.inboxes.set(session.id, inbox)
    const close = () => inbox.close()
    if (signal.aborted) close()
    else signal.addEventListener('abort', close, { once: true })
    return {
      betweenSteps: (scope) => deliverSteers(scope, inbox),
      wantsStep: () => inbox.waiting,
      close,
      settled: () => {
        close()
        signal.removeEventListener('abort', close)
        if (this.inboxes.get(session.id) === inbox) this.inboxes.delete(session.id)
      },
    }
  }
}

/** The steering feature: a {@link Steering} for the protocol layer and the hooks of each turn. */
export function steeringFeature(): AgentFeature {
  const steering = new Steering()
  return { api: steering, turn: (session, request, signal) => steering.turn(session, request, signal) }
}
