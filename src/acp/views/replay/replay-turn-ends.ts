import { turnOutcome } from '../../../agent/turn/turn-end.js'
import { CLEAN_TURN_END_REASONS, type CoreEvent, type SessionEvent } from '../../../session/log/events.js'
import { storedLineOf, withStoredLine } from '../../../session/log/stored-event.js'
import type { ReplayedTurnEnd, SessionUpdateNotification } from '../../../session/projection/update-types.js'
import { SPLICE_MIN_LINE_BYTES } from './stored-line-splice.js'

/** Sends the updates one replayed event projects to; the promise paces the replay's read. */
export type ReplaySend = (
  event: SessionEvent,
  updates: readonly SessionUpdateNotification[],
) => Promise<void> | undefined

/** Turn end reasons with an ACP stop reason of their own (`error` is answered as an error). */
const STOP_REASON_REASONS: ReadonlySet<string> = new Set([...CLEAN_TURN_END_REASONS, 'cancelled'])

/** `_meta.dsh.turnEnd` for the turn that `end` closes. */
export function replayedTurnEnd(end: CoreEvent<'turn/end'>): ReplayedTurnEnd {
  const outcome = turnOutcome(end.seq, end.data)
  return {
    seq: end.seq,
    reason: end.data.reason,
    ...(STOP_REASON_REASONS.has(end.data.reason) && { stopReason: outcome.stopReason }),
    ...(outcome.error !== undefined && { error: outcome.error }),
  }
}

/**
 * Marks how each replayed turn ended on its last update (`_meta.dsh.turnEnd`, see
 * {@link replayedTurnEnd}) without sending anything live did not: inside a turn, the updates of
 * the last event that had any wait until the next event shows whether the turn ends there. Events
 * are given in log order; what is held is sent before anything that follows it. A held event's
 * stored line (lent for the read's call only) is kept as a copy when it is long enough to be
 * spliced, and lent again while its updates are sent, so they are still copied from it.
 */
export class ReplayTurnEnds {
  private held: Held | undefined
  private inTurn = false

  constructor(private readonly send: ReplaySend) {}

  push(event: SessionEvent, updates: readonly SessionUpdateNotification[]): Promise<void> | undefined {
    if (event.type === 'turn/end') {
      const mark = replayedTurnEnd(event)
      this.inTurn = false
      if (updates.length > 0) {
        this.flush()
        return this.send(event, marked(updates, mark))
      }
      const held = this.held
      this.held = undefined
      return held ? this.release(held, marked(held.updates, mark)) : this.send(event, updates)
    }
    if (event.type === 'turn/start') {
      this.flush()
      this.inTurn = true
    }
    if (!this.inTurn || updates.length === 0) return this.send(event, updates)
    const released = this.flush()
    const line = storedLineOf(event)
    this.held = {
      event,
      updates,
      ...(line !== undefined && line.length >= SPLICE_MIN_LINE_BYTES && { line: Buffer.from(line) }),
    }
    return released
  }

  /**
   * An event the client has seen already (a load after `afterSeq`): nothing is sent, but a turn it
   * opens is known to be open, so that its end is still marked on the last update sent.
   */
  passed(event: SessionEvent): void {
    if (event.type === 'turn/start') this.inTurn = true
    else if (event.type === 'turn/end') this.inTurn = false
  }

  /** Sends what is held (a turn still open where the replay ends is not marked). */
  flush(): Promise<void> | undefined {
    const held = this.held
    this.held = undefined
    return held ? this.release(held, held.updates) : undefined
  }

  private release(held: Held, updates: readonly SessionUpdateNotification[]): Promise<void> | undefined {
    const line = held.line
    return line === undefined
      ? this.send(held.event, updates)
      : withStoredLine(held.event, line, () => this.send(held.event, updates))
  }
}

interface Held {
  readonly event: SessionEvent
  readonly updates: readonly SessionUpdateNotification[]
  /** A copy of the event's stored line, when one was lent and is long enough to splice from. */
  readonly line?: Uint8Array
}

function marked(
  updates: readonly SessionUpdateNotification[],
  turnEnd: ReplayedTurnEnd,
): SessionUpdateNotification[] {
  const last = updates.length - 1
  return updates.map((notification, i) =>
    i === last && notification._meta !== undefined
      ? { ...notification, _meta: { dsh: { ...notification._meta.dsh, turnEnd } } }
      : notification,
  )
}
