import type * as acp from '@agentclientprotocol/sdk'
import type * as v2 from '@agentclientprotocol/sdk/experimental/v2'
import type { AgentCapabilities } from '../capabilities.js'
import { goalInitializeMeta } from '../goals/advertise.js'
import type { ClientState } from '../method.js'
import { rewindInitializeMeta } from '../rewind/advertise.js'
import { steeringInitializeMeta } from '../steering/advertise.js'
import { authMethodsV2 } from '../v2/auth-v2.js'
import { initializeV2Result, PROTOCOL_V2, v2ClientCapabilities } from '../v2/initialize-v2.js'
import { chosenVersion } from '../v2/version-choice.js'
import type { AgentInfo } from './agent-info.js'

/** What the agent offers every client at `initialize`, whatever version is chosen. */
export interface InitializeOffer {
  readonly capabilities: AgentCapabilities
  readonly agentInfo: AgentInfo
  /** The auth methods offered to a client with these capabilities; default none. */
  readonly authMethods?: (client: acp.ClientCapabilities | undefined) => acp.AuthMethod[]
}

/**
 * The answer to a (schema-checked) `initialize`: the protocol version the caller chose (default:
 * the highest we serve at or below the requested one, v2/protocol-choice.ts), the capabilities
 * in that version's words, and what the connection keeps of the client. One function for the
 * `initialize` method and for the answer given before the server is built (early-initialize.ts),
 * so both say the same.
 */
export function answerInitialize(
  params: acp.InitializeRequest,
  offer: InitializeOffer,
  protocolVersion: number = chosenVersion(params.protocolVersion, undefined) ?? 1,
): { client: ClientState; result: acp.InitializeResponse | v2.InitializeResponse } {
  const { capabilities, agentInfo, authMethods = () => [] } = offer
  if (protocolVersion === PROTOCOL_V2) {
    const info = (params as { info?: acp.Implementation }).info
    const client = v2ClientCapabilities((params as { capabilities?: unknown }).capabilities)
    const methods = authMethodsV2(authMethods(client))
    const result = initializeV2Result(capabilities, agentInfo, methods)
    return { client: { protocolVersion, capabilities: client, ...(info && { info }) }, result }
  }
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
      _meta: {
        ...rewindInitializeMeta(params.clientCapabilities),
        ...steeringInitializeMeta(),
        ...goalInitializeMeta(),
      },
    },
  }
}
