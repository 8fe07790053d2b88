import type * as acp from '@agentclientprotocol/sdk'
import { type AgentCapabilities, negotiateProtocolVersion } from './capabilities.js'
import type { ClientState } from './method.js'
import { rewindInitializeMeta } from './rewind/advertise.js'
import type { AgentInfo } from './server.js'
import { steeringInitializeMeta } from './steering/steering-methods.js'

/**
 * The answer to a (schema-checked) `initialize`: the negotiated protocol version (ACP: the requested
 * version when supported, else the latest supported), `capabilities`, and what the connection
 * keeps of the client. One function for the `initialize` method and for the answer given before
 * the server is built (early-initialize.ts), so both say the same.
 */
export function answerInitialize(
  params: acp.InitializeRequest,
  capabilities: AgentCapabilities,
  agentInfo: AgentInfo,
  authMethods: (client: acp.ClientCapabilities | undefined) => acp.AuthMethod[] = () => [],
): { client: ClientState; result: acp.InitializeResponse } {
  const protocolVersion = negotiateProtocolVersion(params.protocolVersion)
  return {
    client: {
      protocolVersion,
      capabilities: params.clientCapabilities ?? {},
      ...(params.clientInfo && { info: params.clientInfo }),
    },
    result: {
      protocolVersion,
      agentCapabilities: capabilities,
      authMethods: authMethods(params.clientCapabilities ?? undefined),
      agentInfo: { ...agentInfo },
      _meta: { ...rewindInitializeMeta(params.clientCapabilities), ...steeringInitializeMeta() },
    },
  }
}
