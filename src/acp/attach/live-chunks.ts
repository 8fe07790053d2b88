import type { SessionEvent, SessionUpdateNotification } from '../../session/index.js'
import type { Attached } from './attached.js'

/** The updates streamed before their event is appended (a model's text as it comes). */
const STREAMED: ReadonlySet<string> = new Set(['agent_message_chunk', 'agent_thought_chunk'])
/** What the event of streamed updates projects to (the whole message a replay shows). */
const STREAMED_WHOLE: ReadonlySet<string> = new Set(['agent_message', 'agent_thought'])

/** Whether `update` is one that streams before its event is appended. */
export function streamsAhead(update: SessionUpdateNotification): boolean {
  return STREAMED.has(update.update.sessionUpdate)
}

/**
 * A chunk `owner`'s turn streams before its event `seq` is appended: sent at once to the other
 * seats (the one it holds back goes out first; it holds this one), which then are not sent the
 * event's chunks again when it is appended.
 */
export function streamChunk(
  seats: readonly Attached[],
  owner: object,
  update: SessionUpdateNotification,
  seq: number,
): void {
  for (const seat of seats) {
    if (seat.owner === owner || seat.joinedDuringSeq === seq) continue
    void seat.turnEnds.flush()
    if (seat.lastChunk) void seat.notify(seat.lastChunk)
    seat.streamedSeq = seq
    seat.lastChunk = update
  }
}

/** What `seat` is sent for `event`: its projection, less the chunks it was streamed already. */
export function liveUpdates(
  seat: Attached,
  event: SessionEvent,
  projected: readonly SessionUpdateNotification[],
): readonly SessionUpdateNotification[] {
  const last = seat.lastChunk
  seat.lastChunk = undefined
  if (seat.streamedSeq !== event.seq) {
    // Its event never came (the turn failed before it): the chunk goes out on its own.
    if (last) void seat.notify(last)
    return projected
  }
  const rest = projected.filter((update) => !STREAMED_WHOLE.has(update.update.sessionUpdate))
  return last ? [last, ...rest] : rest
}
