import type { RewindResult } from '../../session/index.js'
import type { CallContext } from '../call-context.js'

/**
 * What the client hears after a rewind, once the answer is written: a `session_info_update` with
 * the session's title and time as they are now (the title may come from a removed prompt or
 * `/title`). ACP has no "history changed" notification (RFD #1321's `history_truncated` is not in
 * the schema); the client that asked for the rewind knows what it removed, and `session/load`
 * replays the shortened history.
 */
export function announceRewind(call: CallContext, result: RewindResult): void {
  const session = result.session
  call.afterResponse(() => {
    void call.notify({
      sessionId: session.id,
      update: { sessionUpdate: 'session_info_update', title: session.title ?? null, updatedAt: session.updatedAt },
    })
  })
}
