import { ProtocolError } from '../../errors.js'
import { defineMethod } from '../../method.js'

/**
 * `authenticate`: runs one of the advertised `agent` auth methods (the set-up checks that the
 * configured provider has a key now). A failure is ACP `auth_required` (-32000) with a message
 * saying what to do; an id that was never advertised is -32602.
 */
export const authenticateMethod = defineMethod({
  name: 'authenticate',
  async handle(params, call) {
    const advertised = call.setup.authMethods(call.client?.capabilities)
    const method = advertised.find((m) => m.id === params.methodId)
    if (!method || ('type' in method && method.type === 'terminal')) {
      const ids = advertised.filter((m) => !('type' in m && m.type === 'terminal')).map((m) => m.id)
      throw ProtocolError.invalidParams(
        `authenticate: ${JSON.stringify(params.methodId)} is not an auth method this agent runs (expected ${ids.length > 0 ? ids.join(' or ') : 'none: no method is advertised'})`,
      )
    }
    try {
      await call.setup.authenticate(params.methodId)
    } catch (error) {
      throw ProtocolError.authRequired((error as Error).message)
    }
    return {}
  },
})
