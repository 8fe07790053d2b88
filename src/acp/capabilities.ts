import type * as acp from '@agentclientprotocol/sdk/unstable'

/**
 * The `agentCapabilities` of an `initialize` response (the SDK's type, with the parts every
 * method's `advertise` writes into made present).
 */
export type AgentCapabilities = acp.AgentCapabilities & {
  promptCapabilities: acp.PromptCapabilities
  mcpCapabilities: acp.McpCapabilities
  sessionCapabilities: acp.SessionCapabilities
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
