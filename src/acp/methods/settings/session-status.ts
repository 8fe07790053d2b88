import { ProtocolError } from '../../errors.js'
import { defineMethod } from '../../method.js'
import { assertSessionId } from '../../requests/session-access.js'

/**
 * `session/status` (unstable): `open` when this process has the session live, `saved` when it is
 * only stored, -32002 (with the id in `data`) when there is no such session. No side effects: it
 * loads, locks and attaches nothing.
 */
export const sessionStatusMethod = defineMethod({
  name: 'session/status',
  async handle(params, call) {
    const sessionId = assertSessionId(params.sessionId)
    const where = await call.sessions.whereIs(sessionId)
    if (where === undefined) throw ProtocolError.sessionNotFound(sessionId)
    return { status: where === 'live' ? 'open' : 'saved' }
  },
})
