import { isValidSessionId, SessionError, SessionErrorCode } from '../../session/index.js'
import { defineMethod } from '../method.js'
import { dropHeldMessages } from '../steering/held-messages.js'

/**
 * `session/delete`: cancels a running turn, then removes the session from memory and disk (and
 * what `_session/inject` held for its next prompt). A
 * session that does not exist (never did, or was already deleted) is deleted already: the answer
 * is the same `{}` (ACP: SHOULD succeed silently).
 */
export const sessionDeleteMethod = defineMethod({
  name: 'session/delete',
  async handle(params, call) {
    if (!isValidSessionId(params.sessionId)) return {}
    await call.agent.cancel(params.sessionId)
    try {
      await call.sessions.delete(params.sessionId)
    } catch (error) {
      if (!(error instanceof SessionError) || error.code !== SessionErrorCode.SESSION_NOT_FOUND) throw error
    }
    dropHeldMessages(call, params.sessionId)
    return {}
  },
})
