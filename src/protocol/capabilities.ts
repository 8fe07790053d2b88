/** The `agentCapabilities` of an `initialize` response, built from the methods that are registered. */
export interface AgentCapabilities {
  loadSession?: boolean
  promptCapabilities: { image: boolean; audio: boolean; embeddedContext: boolean }
  mcpCapabilities: { http: boolean; sse: boolean }
  sessionCapabilities: Record<string, Record<string, never>>
}

/** The protocol versions this agent speaks (ACP v1). */
export const SUPPORTED_PROTOCOL_VERSION = 1

/**
 * ACP version negotiation: answer the requested version when we support it, else the latest we
 * support (the client then decides whether to go on).
 */
export function negotiateProtocolVersion(requested: number): number {
  return requested === SUPPORTED_PROTOCOL_VERSION ? requested : SUPPORTED_PROTOCOL_VERSION
}
