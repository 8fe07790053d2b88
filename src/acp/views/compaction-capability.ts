import type { ClientState } from '../method.js'

/**
 * True when the client advertised `clientCapabilities.session.compaction` (`{}`; omitted or null:
 * not). Only then may compactions go out as `compaction_update` / `compaction_summary_chunk`
 * (ACP v1); otherwise they are shown as a `think` tool call.
 */
export function supportsCompaction(client: ClientState | undefined): boolean {
  const value = client?.capabilities.session?.compaction
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
