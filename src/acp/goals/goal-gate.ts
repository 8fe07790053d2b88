import type { ClientState } from '../client-state.js'

/**
 * Whether a client was offered the goal extension: `initialize` advertises `_meta.goal` in every
 * answer, ACP v1's and v2's (on v2, `session_info_update._meta.goal` is a top-level key of v2's
 * `_meta` patch: a goal replaces it, `null` removes it; the agent's own turns toward the goal run
 * inside the prompt's foreground work, `running` until its `idle`). A client that has not said
 * `initialize` was offered nothing: it may not call `_session/goal` and is sent no goal update.
 */
export function servesGoals(client: ClientState | undefined): boolean {
  return client !== undefined
}
