import type { NdjsonConnection } from '../../jsonrpc/index.js'
import type { Session } from '../../session/index.js'
import { elicitationModes } from '../client/elicitation.js'
import type { ClientState } from '../client-state.js'
import { replayOutput, replayProjector } from '../views/replay/replay-output.js'
import type { ViewCall } from '../views/view-call.js'
import { resyncNotice } from './resync.js'
import type { Seat } from './seat.js'

/**
 * A seat for a client that was shown `session` up to its last event another way (a new session,
 * a resume): the replay's projection fed every event so far, sending nothing.
 */
export function seatAfter(call: ViewCall, session: Session): Seat {
  const projector = replayProjector(call, session.header)
  const { turnEnds } = replayOutput(call)
  for (const event of session.eventsAfter(0)) {
    projector.updatesFor(event)
    turnEnds.passed(event)
  }
  return { projector, turnEnds, notify: (update) => call.notify(update) }
}

/** Whether the client advertised the mode of the elicitation `params` asks (form or url). */
function inModeOf(client: ClientState | undefined, params: unknown): boolean {
  const mode = (params as { mode?: unknown } | undefined)?.mode
  const modes = elicitationModes(client)
  return mode === 'url' ? modes.url : mode === 'form' && modes.form
}

/** `$/cancel_request { requestId }`: how a question withdrawn from a client is cancelled on its wire. */
const CANCEL_ON_THE_WIRE = { method: '$/cancel_request', idParam: 'requestId' } as const

/**
 * What a seat of the connection of `scope` needs beyond its projection: a sender whose abort
 * cancels a question on the wire, the client's name for the others' presence, its re-sync after
 * another process replaced the log, and the attaching call's after-answer hook.
 */
export function connectionParts(
  call: ViewCall,
  scope: { readonly wire: NdjsonConnection; readonly client: ClientState | undefined },
): Pick<Seat, 'ask' | 'name' | 'canAnswer' | 'tell' | 'resync' | 'afterResponse'> {
  const name = scope.client?.info?.name
  return {
    ask: (method, params, signal) => scope.wire.request(method, params, signal, CANCEL_ON_THE_WIRE),
    ...(name !== undefined && { name }),
    canAnswer: (method, params) => method !== 'elicitation/create' || inModeOf(scope.client, params),
    tell: (method, params) => void scope.wire.notify(method, params).catch(() => {}),
    resync: (session, keptSeq) => resyncSeat(call, session, keptSeq),
    afterResponse: (task) => call.afterResponse(task),
  }
}

/**
 * Re-syncs the client of `call` on `session` read again: sends the notice, then the updates of the
 * events after `keptSeq` as a replay shows them. Returns its new projection (fed the whole log).
 */
export function resyncSeat(
  call: ViewCall,
  session: Session,
  keptSeq: number,
): Pick<Seat, 'projector' | 'turnEnds' | 'notify'> {
  const projector = replayProjector(call, session.header)
  const { turnEnds } = replayOutput(call)
  void call.notify(resyncNotice(session, keptSeq))
  for (const event of session.eventsAfter(0)) {
    const updates = projector.updatesFor(event)
    if (event.seq > keptSeq) void turnEnds.push(event, updates)
    else turnEnds.passed(event)
  }
  void turnEnds.flush()
  return { projector, turnEnds, notify: (update) => call.notify(update) }
}
