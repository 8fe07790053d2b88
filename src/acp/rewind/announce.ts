import { type RewindResult, titleUpdate } from '../../session/index.js'
import type { CallContext } from '../call-context.js'

/**
 * What the client hears after a rewind, once the answer is written: a `session_info_update` with
 * the session's title as it is now (it may have come from a removed prompt or `/title`), tagged
 * with the seq of the event it comes from (a rewind to before every prompt leaves no title: then
 * nothing is sent). ACP has no "history changed" notification (RFD #1321's `history_truncated` is
 * not in the schema); the client that asked knows what it removed, and `session/load` replays the
 * shortened history.
 */
export function announceRewind(call: CallContext, result: RewindResult): void {
  const session = result.session
  const origin = session.titleOrigin
  if (origin === undefined) return
  call.afterResponse(() => {
    void call.notify({
      sessionId: session.id,
      update: titleUpdate(origin.title, session.updatedAt),
      ...(origin.seq !== undefined && { _meta: { dsh: { seq: origin.seq } } }),
    })
  })
}
