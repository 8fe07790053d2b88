import type { LivePermissions } from '../config/permissions.js'
import type { RunningTurn } from './turn-scope.js'

/**
 * The turns an agent runs now, one per session: what cancels each, its end, and its live
 * permissions. Once {@link cancelFromNow} was called (the server is ending), every turn started from
 * then on is cancelled at its start.
 */
export class RunningTurns {
  private readonly running = new Map<string, RunningTurn>()
  private cancellingAll = false

  /** True while a turn runs on this session. */
  has(sessionId: string): boolean {
    return this.running.has(sessionId)
  }

  /** The live permissions of the turn running on this session, if one runs. */
  permissions(sessionId: string): LivePermissions | undefined {
    return this.running.get(sessionId)?.permissions
  }

  /**
   * A new turn's controller, aborted with `signal` (the request's) and at once when that already
   * aborted or every turn is being cancelled; `release` stops following `signal`.
   */
  controller(signal: AbortSignal): { controller: AbortController; release: () => void } {
    const controller = new AbortController()
    const onAbort = () => controller.abort()
    if (signal.aborted || this.cancellingAll) onAbort()
    else signal.addEventListener('abort', onAbort, { once: true })
    return { controller, release: () => signal.removeEventListener('abort', onAbort) }
  }

  /** Marks the turn running on `sessionId` until {@link end}. */
  begin(sessionId: string, turn: RunningTurn): void {
    this.running.set(sessionId, turn)
  }

  end(sessionId: string): void {
    this.running.delete(sessionId)
  }

  /** Aborts the session's running turn, if any, and resolves once it has ended. */
  async cancel(sessionId: string): Promise<void> {
    const turn = this.running.get(sessionId)
    if (!turn) return
    turn.controller.abort()
    await turn.done.catch(() => {})
  }

  /** From now on every turn is cancelled at its start; returns the sessions whose turns run now. */
  cancelFromNow(): string[] {
    this.cancellingAll = true
    return [...this.running.keys()]
  }

  /** Aborts every running turn at once (the agent is disposed). */
  abortAll(): void {
    for (const turn of this.running.values()) turn.controller.abort()
  }
}
