import type { ClientState } from '../client-state.js'

/**
 * Whether a client was offered the goal extension: `initialize` advertises `_meta.goal` in every
 * ACP v1 answer and in no v2 one. A client that was not offered it may not call `_session/goal`
 * and is sent no goal update (its view drops them).
 */
export function servesGoals(client: ClientState | undefined): boolean {
  return client !== undefined && client.protocolVersion < 2
}
