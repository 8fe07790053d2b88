import { SessionErrorCode, SessionForkError } from '../errors.js'
import type { SubagentMarker } from '../header.js'
import { boundaryStatus } from '../log/log-state.js'
import type { Session } from '../session.js'

/**
 * The seed's subagent rule: a tool-triggered fork usually happens while the parent's turn is
 * open, so the child's seed is clipped to the parent's last completed-turn prefix: the greatest
 * seq at or before the parent's last event that ends outside an open turn (standalone events
 * after the last `turn/end`, such as configuration changes, are kept). An empty parent, or one
 * whose log ends outside a turn, is copied whole. The same boundary `fork` would accept, and the
 * one its `OPEN_TURN` error names as `lastSafeBoundary`.
 */
export function subagentBoundary(parent: Session): number {
  if (parent.lastSeq === 0) return 0
  return boundaryStatus(parent.turnSpans(), parent.lastSeq).lastSafeBoundary
}

/** The marker as the header stores it (a copy), or `INVALID_SUBAGENT_MARKER`. */
export function checkSubagentMarker(marker: unknown): SubagentMarker {
  const m = marker as Partial<SubagentMarker> | null
  if (
    typeof m !== 'object' ||
    m === null ||
    typeof m.callId !== 'string' ||
    m.callId === '' ||
    !Number.isSafeInteger(m.turn) ||
    (m.turn as number) < 1
  ) {
    throw new SessionForkError(
      SessionErrorCode.INVALID_SUBAGENT_MARKER,
      'a subagent marker is { turn: a positive integer, callId: a non-empty string }',
      { marker: marker ?? null },
    )
  }
  return { turn: m.turn as number, callId: m.callId }
}
