import type { SessionEvent } from '../../src/session/log/events.js'

/**
 * The fork oracle, computed from the events alone: whether each prefix length b ends outside an
 * open turn (b = 0 always does), and the greatest such b' <= b. `fork` accepts exactly the safe
 * boundaries; the subagent fork of a log of length b copies exactly `lastSafe[b]` events.
 */
export function forkOracle(events: readonly SessionEvent[]): { safe: boolean[]; lastSafe: number[] } {
  const safe = [true]
  const lastSafe = [0]
  let inTurn = false
  for (const event of events) {
    if (event.type === 'turn/start') inTurn = true
    if (event.type === 'turn/end') inTurn = false
    safe.push(!inTurn)
    lastSafe.push(inTurn ? (lastSafe[lastSafe.length - 1] as number) : event.seq)
  }
  return { safe, lastSafe }
}
