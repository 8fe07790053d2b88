import type { ContentBlock, GoalData, Session, SessionStore } from '../../session/index.js'
import type { ToolRegistry } from '../tools/registry.js'
import { currentGoal } from './goal-state.js'
import { goalStatusTool } from './goal-tool.js'
import {
  type AfterGoalTurn,
  afterGoalTurn,
  type GoalLimits,
  type GoalTurn,
  goalPrompt,
} from './goal-turns.js'

/**
 * The agent's side of session goals (`agent.features.get(SessionGoals)`): the limits of a goal's work, the
 * `goal_status` tool offered to a session's turns while its goal is active, and what follows a
 * turn that worked toward it. The goal itself is in the log (see `currentGoal`).
 */
export class SessionGoals {
  private readonly offered = new Map<string, Promise<() => void>>()
  private readonly cancels = new Map<string, number>()

  constructor(
    private readonly tools: ToolRegistry,
    private readonly sessions: () => SessionStore,
    readonly limits: GoalLimits,
  ) {}

  /** The session's goal now (null: none). */
  current(session: Session): GoalData | null {
    return currentGoal(session)
  }

  /**
   * Before a turn of `session`: offers `goal_status` to its turns while its goal is active, and
   * withdraws it otherwise. Resolves once the offer holds.
   */
  async prepareTurn(session: Session): Promise<void> {
    if (currentGoal(session)?.status === 'active') {
      let offer = this.offered.get(session.id)
      if (!offer) {
        offer = this.tools.registerForSession(goalStatusTool(this.sessions, session.id), session.id, {
          rank: -1,
        })
        this.offered.set(session.id, offer)
        offer.catch(() => this.offered.delete(session.id))
      }
      await offer
    } else {
      await this.withdraw(session.id)
    }
  }

  /** See {@link afterGoalTurn}; `prompt` is the next turn's when one follows. */
  afterTurn(session: Session, turn: GoalTurn): AfterGoalTurn & { readonly prompt?: ContentBlock[] } {
    const after = afterGoalTurn(session, turn, this.limits)
    const goal = currentGoal(session)
    return after.goOn && goal !== null ? { ...after, prompt: goalPrompt(goal) } : after
  }

  /**
   * Counts a cancel of the session's work (`AgentService.cancel`): the goal's turns compare the
   * count before each turn they start, so a cancel that came between two turns stops them too.
   */
  noteCancel(sessionId: string): void {
    this.cancels.set(sessionId, this.cancelCount(sessionId) + 1)
  }

  /** How many cancels of the session this process has seen. */
  cancelCount(sessionId: string): number {
    return this.cancels.get(sessionId) ?? 0
  }

  /** Takes `goal_status` away from the session's turns (its goal is no longer active, or it closed). */
  async withdraw(sessionId: string): Promise<void> {
    const offer = this.offered.get(sessionId)
    if (!offer) return
    this.offered.delete(sessionId)
    const remove = await offer.catch(() => undefined)
    remove?.()
  }

  /** Forgets the session (it was closed or disposed): its tool and its cancels. */
  forget(sessionId: string): Promise<void> {
    this.cancels.delete(sessionId)
    return this.withdraw(sessionId)
  }
}
