import { isObject } from '../../lib/is.js'

/**
 * The transcript's session ids and the live agent's for the same sessions, learned from pairs of
 * responses (a `sessionId` at the same place in both), so the replay sends the live ids.
 */
export class SessionIds {
  private readonly live = new Map<string, string>()

  /** Learns from a transcript response and the live response to the same request. */
  learn(recorded: unknown, actual: unknown): void {
    if (Array.isArray(recorded) && Array.isArray(actual)) {
      for (const [i, item] of recorded.entries()) this.learn(item, actual[i])
    } else if (isObject(recorded) && isObject(actual)) {
      for (const [key, value] of Object.entries(recorded)) {
        const other = actual[key]
        const both = typeof value === 'string' && typeof other === 'string'
        if (key === 'sessionId' && both && value !== other) this.live.set(value, other)
        else this.learn(value, other)
      }
    }
  }

  /** A copy of `value` with every string that is a known transcript session id replaced by the live one. */
  toLive(value: unknown): unknown {
    if (typeof value === 'string') return this.live.get(value) ?? value
    if (Array.isArray(value)) return value.map((v) => this.toLive(v))
    if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.toLive(v)]))
    return value
  }
}
