import { normalizeTitle, titleUpdate } from '../../../session/index.js'
import { ProtocolError } from '../../errors.js'
import { defineMethod } from '../../method.js'
import { assertSessionId } from '../../requests/session-access.js'

/**
 * `session/set_title` (unstable): stores a title the user chose for any listed session, loaded or
 * not, durable before the answer. The title is normalized (whitespace collapsed, at most 200
 * characters); empty after that is -32602. A title set so is a `session/title` event, which the
 * title derived from the first prompt never replaces. A session live here tells its client with a
 * `session_info_update`, sent when the event is appended (in log order with what other clients
 * append); set while the model's text streams, it is appended once that step's message is.
 */
export const sessionSetTitleMethod = defineMethod({
  name: 'session/set_title',
  async handle(params, call) {
    const sessionId = assertSessionId(params.sessionId)
    const title = normalizeTitle(params.title)
    if (title === '') {
      throw ProtocolError.invalidParams('session/set_title: title is empty once whitespace is trimmed', {
        field: 'title',
      })
    }
    const wasLive = call.sessions.get(sessionId) !== undefined
    await call.sessions.borrow(sessionId, async (session) => {
      // Not inside a model step's streamed text: its message keeps the seq its chunks announced.
      if (wasLive) await call.streamPassed(sessionId)
      const event = session.append({ type: 'session/title', data: { title } })
      // Shown as soon as it is in the log: what is appended after it reaches this client after it.
      if (wasLive) {
        void call.notify({
          sessionId,
          update: titleUpdate(title, event.time),
          _meta: { dsh: { seq: event.seq } },
        })
      }
    })
    return { title }
  },
})
