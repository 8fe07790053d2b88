import { negotiateProtocolVersion } from '../capabilities.js'
import { defineMethod } from '../method.js'
import type { AgentInfo } from '../server.js'

/**
 * `initialize`: negotiates the protocol version (ACP: answer the requested version when supported,
 * else the latest supported) and answers the capabilities of the methods registered right now.
 */
export function initializeMethod(agentInfo: AgentInfo) {
  return defineMethod({
    name: 'initialize',
    beforeInitialize: true,
    handle(params, call) {
      const protocolVersion = negotiateProtocolVersion(params.protocolVersion)
      call.setClient({
        protocolVersion,
        capabilities: params.clientCapabilities ?? {},
        ...(params.clientInfo && { info: params.clientInfo }),
      })
      return {
        protocolVersion,
        agentCapabilities: call.capabilities(),
        authMethods: [],
        agentInfo: { ...agentInfo },
      }
    },
  })
}
