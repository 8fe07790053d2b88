import type { SessionStore } from '../../session/index.js'
import { defineMethod } from '../method.js'
import { assertSessionId } from '../requests/session-access.js'
import { dropHeldMessages } from '../steering/held-messages.js'

/** Records the archive state (a `session/archived` event, durable) unless it is that already. */
async function setArchived(sessions: SessionStore, sessionId: string, archived: boolean): Promise<void> {
  await sessions.borrow(sessionId, (session) => {
    if (session.archived !== archived) session.append({ type: 'session/archived', data: { archived } })
  })
}

/**
 * `session/archive` (unstable): hides the session from the default `session/list`, keeping its id
 * and history. A live session is first cancelled and let go as `session/close` would (what
 * `_session/inject` held for it is dropped). Archiving an
 * archived session succeeds; an unknown one is -32002.
 */
export const sessionArchiveMethod = defineMethod({
  name: 'session/archive',
  async handle(params, call) {
    const sessionId = assertSessionId(params.sessionId)
    await call.agent.cancel(sessionId)
    await setArchived(call.sessions, sessionId, true)
    if (call.sessions.get(sessionId)) await call.sessions.close(sessionId)
    dropHeldMessages(call, sessionId)
    return {}
  },
})

/**
 * `session/unarchive` (unstable): lists the session by default again. It never loads or resumes
 * it: a session that was not live is not live afterwards. Unarchiving a session that is not
 * archived succeeds; an unknown one is -32002.
 */
export const sessionUnarchiveMethod = defineMethod({
  name: 'session/unarchive',
  async handle(params, call) {
    await setArchived(call.sessions, assertSessionId(params.sessionId), false)
    return {}
  },
})
