import { defineMethod } from '../method.js'
import { assertSessionId } from '../requests/session-access.js'

/** `session/close`: cancels a running turn as `session/cancel` would, waits for it, then lets go. */
export const sessionCloseMethod = defineMethod({
  name: 'session/close',
  async handle(params, call) {
    const sessionId = assertSessionId(params.sessionId)
    call.sessions.require(sessionId)
    await call.agent.cancel(sessionId)
    await call.sessions.close(sessionId)
    return {}
  },
})
