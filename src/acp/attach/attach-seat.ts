import type { Session } from '../../session/index.js'
import type { CallContext, CallScope } from '../call-context.js'
import { replayOutput, replayProjector } from '../views/replay-output.js'
import type { Seat } from './session-audience.js'

/**
 * A seat for a client that was shown `session` up to its last event another way (a new session,
 * a resume): the replay's projection fed every event so far, sending nothing.
 */
export function seatAfter(call: CallContext, session: Session): Seat {
  const projector = replayProjector(call, session.header)
  for (const event of session.eventsAfter(0)) projector.updatesFor(event)
  return {
    projector,
    turnEnds: replayOutput(call).turnEnds,
    notify: (update) => call.notify(update),
    call,
  }
}

/** `$/cancel_request { requestId }`: how a question withdrawn from a client is cancelled on its wire. */
const CANCEL_ON_THE_WIRE = { method: '$/cancel_request', idParam: 'requestId' } as const

/**
 * What a seat of the connection of `scope` needs to be asked the session's questions: a sender
 * whose abort cancels the request on the wire, and the client's name for the others' presence.
 */
export function answererParts(scope: Pick<CallScope, 'wire' | 'client'>): Pick<Seat, 'ask' | 'name'> {
  const name = scope.client?.info?.name
  return {
    ask: (method, params, signal) => scope.wire.request(method, params, signal, CANCEL_ON_THE_WIRE),
    ...(name !== undefined && { name }),
  }
}
