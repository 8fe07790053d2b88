import type { ClientCapabilities } from '@agentclientprotocol/sdk'
import type { AgentInfo } from '../../initialize/agent-info.js'
import { answerInitialize } from '../../initialize/initialize-answer.js'
import { defineMethod } from '../../method.js'
import { repeatVersion, selectVersion } from '../../v2/protocol-choice.js'

/**
 * `initialize`: chooses the protocol version (the first one: the highest served at or below the
 * requested one, or the one `pinned` by `--protocol`; a repeat: the version already chosen, by the
 * SDK router's rules, v2/protocol-choice.ts) and answers the capabilities of the methods
 * registered right now (see initialize-answer.ts).
 */
export function initializeMethod(agentInfo: AgentInfo, pinned?: number) {
  return defineMethod({
    name: 'initialize',
    beforeInitialize: true,
    handle(params, call) {
      const previous = call.client
      const version =
        previous === undefined
          ? selectVersion(params.protocolVersion, pinned)
          : repeatVersion(previous, params.protocolVersion)
      const offer = {
        capabilities: call.capabilities(),
        agentInfo,
        authMethods: (client: ClientCapabilities | undefined) => call.setup.authMethods(client),
      }
      const { client, result } = answerInitialize(params, offer, version)
      call.setClient(client)
      return result
    },
  })
}
