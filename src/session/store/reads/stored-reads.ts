import { SessionError, SessionErrorCode } from '../../errors.js'
import type { SessionHeader } from '../../header.js'
import type { SessionId } from '../../ids.js'
import type { SessionEvent } from '../../log/events.js'
import { StoredLogChecker } from '../../log/log-building.js'
import { assertEventShape } from '../../log/validate-event.js'
import { Session, type SessionHost } from '../../session.js'
import type { SessionPersistence, StoredEventListener, StoredEventVisitor } from '../persistence-port.js'

/**
 * Reads a persisted session back through `persistence` into a `Session` that is not live yet (the
 * store admits it): the log is checked against the header and every invariant while it is read,
 * and `replay` hears each event once it passed (see `SessionStore.load`). Throws
 * `SESSION_NOT_FOUND` when none is stored; a session read but refused is released.
 */
export async function readStoredSession(
  persistence: SessionPersistence | undefined,
  id: SessionId,
  replay: StoredEventListener | undefined,
  host: SessionHost,
): Promise<Session> {
  if (!persistence) throw notFound(id)
  const checker = new StoredLogChecker(id)
  let heard = 0
  let replayFailure: { error: unknown } | undefined
  const take = (event: SessionEvent, header: SessionHeader) => {
    if (heard === 0) checker.header(header)
    checker.event(event)
    heard++
    const failed = (error: unknown) => {
      replayFailure = { error }
      throw error
    }
    try {
      return replay?.(event, header)?.catch(failed)
    } catch (error) {
      return failed(error)
    }
  }
  const stored = await persistence
    .open(id, take)
    .catch((error) => Promise.reject(replayFailure ? replayFailure.error : naming(id, error)))
  if (!stored) throw notFound(id)
  try {
    if (heard === 0) checker.header(stored.header)
    // A backend that does not stream resolved with every event: go through those not heard.
    for (let i = heard; i < stored.events.length; i++) {
      const paced = take(stored.events[i] as SessionEvent, stored.header)
      if (paced) await paced
    }
    // The events as the backend resolved them: those it heard whole may be stand-ins now.
    return new Session(stored.header, stored.events, checker.finish(stored.header), host)
  } catch (error) {
    await persistence.release(id)
    throw error
  }
}

/**
 * Goes through a stored session's events with `seq >= from` without opening it (see
 * `SessionStore.visitEvents`), each event's shape checked before `visit` hears it. Resolves the
 * header; throws `SESSION_NOT_FOUND` when there is no such session (or no backend that can read it).
 */
export async function visitStoredEvents(
  persistence: SessionPersistence | undefined,
  id: SessionId,
  from: number,
  visit: StoredEventVisitor,
): Promise<SessionHeader> {
  const header = await persistence?.visit?.(id, from, (event, header) => {
    try {
      assertEventShape(event.type, event.data)
    } catch (error) {
      throw new SessionError(SessionErrorCode.CORRUPT_SESSION, `session ${id}: ${(error as Error).message}`, {
        sessionId: id,
        seq: event.seq,
      })
    }
    return visit(event, header)
  })
  if (!header) throw notFound(id)
  return header
}

/** A backend's `SessionError` with `data.sessionId` added, so every caller learns which session failed. */
function naming(id: SessionId, error: unknown): unknown {
  if (!(error instanceof SessionError) || error.data.sessionId !== undefined) return error
  return new SessionError(error.code, error.message, { sessionId: id, ...error.data }, { cause: error })
}

export function notFound(id: SessionId): SessionError {
  return new SessionError(SessionErrorCode.SESSION_NOT_FOUND, `session ${id} not found`, { sessionId: id })
}
