import type { Session } from '../../session/index.js'
import type { CallContext } from '../call-context.js'
import { replayOutput, replayProjector } from '../views/replay-output.js'
import type { Seat } from './session-audience.js'

/**
 * A seat for a client that was shown `session` up to its last event another way (a new session,
 * a resume): the replay's projection fed every event so far, sending nothing.
 */
export function seatAfter(call: CallContext, session: Session): Seat {
  const projector = replayProjector(call, session.header)
  const { turnEnds } = replayOutput(call)
  for (const event of session.eventsAfter(0)) {
    projector.updatesFor(event)
    turnEnds.passed(event)
  }
  return { projector, turnEnds, notify: (update) => call.notify(update) }
}
