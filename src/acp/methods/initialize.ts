import { answerInitialize } from '../initialize-answer.js'
import { defineMethod } from '../method.js'
import type { AgentInfo } from '../server.js'

/**
 * `initialize`: negotiates the protocol version and answers the capabilities of the methods
 * registered right now (see initialize-answer.ts).
 */
export function initializeMethod(agentInfo: AgentInfo) {
  return defineMethod({
    name: 'initialize',
    beforeInitialize: true,
    handle(params, call) {
      const { client, result } = answerInitialize(params, call.capabilities(), agentInfo, (client) =>
        call.setup.authMethods(client),
      )
      call.setClient(client)
      return result
    },
  })
}
