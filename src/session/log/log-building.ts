import { SessionError, SessionErrorCode } from '../errors.js'
import type { SessionHeader } from '../header.js'
import type { SessionId } from '../ids.js'
import type { SessionEvent } from './events.js'
import { deepFreeze, freezeJsonCopy } from './frozen.js'
import { LogState } from './log-state.js'
import { assertEventShape } from './validate-event.js'

/**
 * A seed given to `create`: each event deep-copied and frozen, then checked (shape, contiguous
 * seq from 1, every log invariant) exactly as it will be stored. Throws `INVALID_SEED`.
 */
export function seedLog(
  seed: readonly SessionEvent[],
  sessionId: SessionId,
): { log: SessionEvent[]; state: LogState } {
  const state = new LogState()
  const log: SessionEvent[] = []
  for (const input of seed) {
    const event = copySeedEvent(input, sessionId)
    try {
      state.check(event)
    } catch (error) {
      throw new SessionError(
        SessionErrorCode.INVALID_SEED,
        `seed of ${sessionId}: ${(error as Error).message}`,
        {
          sessionId,
          ...(error as SessionError).data,
        },
      )
    }
    state.apply(event)
    log.push(event)
  }
  return { log, state }
}

/**
 * Checks a log read back from persistence as it streams in: the header first, then each event in
 * order against every invariant (each frozen in place, no copy), then `finish` once the log ended.
 * Everything throws `CORRUPT_SESSION` naming the session (and the seq).
 */
export class StoredLogChecker {
  readonly state = new LogState()
  private events = 0

  constructor(private readonly id: SessionId) {}

  private corrupt(message: string, data: Record<string, unknown> = {}): SessionError {
    return new SessionError(SessionErrorCode.CORRUPT_SESSION, `session ${this.id}: ${message}`, {
      sessionId: this.id,
      ...data,
    })
  }

  header(header: SessionHeader): void {
    if (header.id !== this.id) throw this.corrupt(`header names session ${header.id}`)
  }

  /** Checks, freezes and applies the next event; returns it. */
  event(event: SessionEvent): SessionEvent {
    try {
      assertEventShape(event.type, event.data)
      this.state.check(event)
    } catch (error) {
      throw this.corrupt((error as Error).message, { seq: event.seq })
    }
    this.state.apply(deepFreeze(event))
    this.events++
    return event
  }

  /** The log ended: its length must cover the header's seed. Returns the state. */
  finish(header: SessionHeader): LogState {
    if (header.seedLength !== undefined && header.seedLength > this.events) {
      throw this.corrupt(`header says ${header.seedLength} seed events but the log holds ${this.events}`)
    }
    return this.state
  }
}

function copySeedEvent(input: SessionEvent, sessionId: SessionId): SessionEvent {
  try {
    if (typeof input !== 'object' || input === null) throw new TypeError('an event must be an object')
    // Check the frozen copy, not the input: what is checked is exactly what is stored.
    const event = freezeJsonCopy({
      seq: input.seq,
      type: input.type,
      time: input.time,
      data: input.data,
    }) as SessionEvent
    assertEventShape(event.type, event.data)
    if (typeof event.time !== 'string') throw new TypeError(`seed event ${event.seq}: time must be a string`)
    return event
  } catch (error) {
    throw new SessionError(
      SessionErrorCode.INVALID_SEED,
      `seed of ${sessionId}: ${(error as Error).message}`,
      {
        sessionId,
      },
    )
  }
}
