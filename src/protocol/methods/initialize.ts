import { negotiateProtocolVersion } from '../capabilities.js'
import { ProtocolError } from '../errors.js'
import type { AcpMethod } from '../method.js'
import { objectParams } from '../params.js'
import type { AgentInfo } from '../server.js'

/**
 * `initialize`: negotiates the protocol version (ACP: answer the requested version when supported,
 * else the latest supported) and answers the capabilities of the methods registered right now.
 */
export function initializeMethod(agentInfo: AgentInfo): AcpMethod {
  return {
    name: 'initialize',
    beforeInitialize: true,
    handle(raw, call) {
      const params = objectParams('initialize', raw)
      const requested = params.protocolVersion
      if (!Number.isInteger(requested) || (requested as number) < 0 || (requested as number) > 65535) {
        throw ProtocolError.invalidParams('initialize: protocolVersion must be an integer from 0 to 65535', {
          field: 'protocolVersion',
        })
      }
      const capabilities = params.clientCapabilities
      const info = params.clientInfo
      const protocolVersion = negotiateProtocolVersion(requested as number)
      call.setClient({
        protocolVersion,
        capabilities:
          typeof capabilities === 'object' && capabilities !== null
            ? (capabilities as Record<string, unknown>)
            : {},
        ...(typeof info === 'object' && info !== null && { info: info as Record<string, unknown> }),
      })
      return {
        protocolVersion,
        agentCapabilities: call.capabilities(),
        authMethods: [],
        agentInfo: { ...agentInfo },
      }
    },
  }
}
