import type { Session, SessionEvent, SessionUpdateNotification } from '../../session/index.js'
import { replayedTurnEnd } from '../views/replay/replay-turn-ends.js'
import type { Attached } from './attached.js'
import { liveUpdates } from './live-chunks.js'

/**
 * Shows `seat` what another process appended (`events`, just taken into the log), as a replay
 * projects it, less what it was streamed of them already. Inside a turn that is still open the last update goes out at once rather than wait
 * for the next event; the turn's end then comes as a `session_info_update` with
 * `_meta.dsh.turnEnd` when it has no update of its own.
 */
export function showCaughtUp(seat: Attached, session: Session, events: readonly SessionEvent[]): void {
  for (const event of events) {
    const updates = liveUpdates(seat, event, seat.projector.updatesFor(event))
    void seat.turnEnds.push(event, updates)
    noteTurnEnd(seat, session.id, event, updates)
    tellTurnState(seat, session.id, event)
  }
  if (session.openTurn !== undefined && seat.turnEnds.flush() !== undefined) seat.endUnmarked = true
}

/**
 * Keeps `seat.endUnmarked` for `event` and its `updates` (about to be pushed to the seat): at a
 * turn's end with no update of its own, when the turn's last update went out unmarked, the end
 * comes as a `session_info_update` of its own with `_meta.dsh` `seq` and `turnEnd`.
 */
export function noteTurnEnd(
  seat: Attached,
  sessionId: string,
  event: SessionEvent,
  updates: readonly SessionUpdateNotification[],
): void {
  if (event.type === 'turn/end') {
    if (updates.length === 0 && seat.endUnmarked) {
      void seat.notify({
        sessionId,
        update: { sessionUpdate: 'session_info_update' },
        _meta: { dsh: { seq: event.seq, turnEnd: replayedTurnEnd(event) } },
      })
    }
    seat.endUnmarked = false
  } else if (updates.length > 0) seat.endUnmarked = false
}

/**
 * Another's turn started or ended, shown live to `seat` (after the event's own updates): a
 * `turn_state`, which an ACP v2 client's view sends as `state_update` (v1 has none).
 */
export function tellTurnState(seat: Attached, sessionId: string, event: SessionEvent): void {
  if (event.type !== 'turn/start' && event.type !== 'turn/end') return
  const stopReason = event.type === 'turn/end' ? replayedTurnEnd(event).stopReason : undefined
  void seat.notify({
    sessionId,
    update: {
      sessionUpdate: 'turn_state',
      state: event.type === 'turn/start' ? 'running' : 'idle',
      ...(stopReason !== undefined && { stopReason }),
    },
    _meta: { dsh: { seq: event.seq } },
  })
}
