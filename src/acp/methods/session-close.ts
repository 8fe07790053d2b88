import { defineMethod } from '../method.js'
import { assertSessionId } from '../requests/session-access.js'
import { dropHeldMessages } from '../steering/held-messages.js'

/**
 * `session/close`: detaches this client; when no other client of this process has the session
 * open, cancels a running turn as `session/cancel` would, waits for it, then lets go (and drops
 * what `_session/inject` held for its next prompt).
 */
export const sessionCloseMethod = defineMethod({
  name: 'session/close',
  async handle(params, call) {
    const sessionId = assertSessionId(params.sessionId)
    call.sessions.require(sessionId)
    if (call.sharedWithOthers(sessionId)) {
      call.detach(sessionId)
      return {}
    }
    call.detach(sessionId)
    await call.agent.cancel(sessionId)
    await call.sessions.close(sessionId)
    dropHeldMessages(call, sessionId)
    return {}
  },
})
