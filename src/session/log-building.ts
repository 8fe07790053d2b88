import { SessionError, SessionErrorCode } from './errors.js'
import type { SessionEvent } from './events.js'
import { deepFreeze, freezeJsonCopy } from './frozen.js'
import type { SessionHeader } from './header.js'
import type { SessionId } from './ids.js'
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
 * The state of a log read back from persistence, checked against its header and every invariant;
 * the parsed events are frozen in place (no copy). Throws `CORRUPT_SESSION` naming the seq.
 */
export function storedLogState(
  id: SessionId,
  header: SessionHeader,
  events: readonly SessionEvent[],
): LogState {
  const corrupt = (message: string, data: Record<string, unknown> = {}) =>
    new SessionError(SessionErrorCode.CORRUPT_SESSION, `session ${id}: ${message}`, {
      sessionId: id,
      ...data,
    })
  if (header.id !== id) throw corrupt(`header names session ${header.id}`)
  if (header.seedLength !== undefined && header.seedLength > events.length) {
    throw corrupt(`header says ${header.seedLength} seed events but the log holds ${events.length}`)
  }
  const state = new LogState()
  for (const event of events) {
    try {
      assertEventShape(event.type, event.data)
      state.check(event)
    } catch (error) {
      throw corrupt((error as Error).message, { seq: event.seq })
    }
    state.apply(deepFreeze(event))
  }
  return state
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
