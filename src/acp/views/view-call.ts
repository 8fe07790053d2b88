import type { AgentService } from '../../agent/service.js'
import type { SessionEvent, SessionStore, SessionUpdateNotification } from '../../session/index.js'
import type { ClientView } from './client-view.js'

/**
 * What a view of one call uses of it (replays, seats, subagent replays): the part of
 * `CallContext` they need, in its own file, so that they and the call do not import each other.
 */
export interface ViewCall {
  /** `ctx.sessions`, resolved once when the server started (cordis service reads are slow). */
  readonly sessions: SessionStore
  /** `ctx.agent`, resolved once when the server started. */
  readonly agent: AgentService
  /** What this client sees (the only place deciding it): made from its `initialize`. */
  readonly view: ClientView
  /**
   * Sends one canonical `session/update` notification as this client's {@link view} renders it
   * (none, one or several), in order with everything else written. Resolves when the last was
   * handed to the output (later when the output pushes back); never rejects. `from`: the stored
   * event the update was projected from; while its backend lends the line it was parsed from
   * (`storedLineOf`), long strings the two share are copied from the line's bytes.
   */
  notify(update: SessionUpdateNotification, from?: SessionEvent): Promise<void>
  /**
   * Runs `task` once this call's response has been written, if the call succeeds: for updates a
   * client drops when they come before the answer that tells it about the session.
   */
  afterResponse(task: () => void): void
}
