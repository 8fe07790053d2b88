import type { ListOptions, SessionHeader, SessionPage, SessionSummary } from '../../header.js'
import type { SessionId } from '../../ids.js'
import type { Session } from '../../session.js'
import type { SessionPersistence, StoredEventVisitor } from '../persistence-port.js'
import { paginate } from './paginate.js'

/** `SessionStore.visitEvents` for a live session: its events with `seq >= from`, from its log. */
export async function visitLiveEvents(
  session: Session,
  from: number,
  visit: StoredEventVisitor,
): Promise<SessionHeader> {
  for (const event of session.eventsAfter(Math.max(0, from - 1))) {
    let more = visit(event, session.header)
    if (typeof more !== 'boolean') more = await more
    if (!more) break
  }
  return session.header
}

/** `SessionStore.list`: the backend's page with live sessions' current state, else the live ones alone. */
export function listSessions(
  persistence: SessionPersistence | undefined,
  live: ReadonlyMap<SessionId, Session>,
  options: ListOptions,
): Promise<SessionPage> {
  try {
    if (!persistence) return Promise.resolve(paginate(liveSummaries(live), options))
    if (live.size === 0) return persistence.list(options)
    return persistence.list(options, (id) => live.get(id)?.summary())
  } catch (error) {
    return Promise.reject(error)
  }
}

function* liveSummaries(live: ReadonlyMap<SessionId, Session>): Iterable<SessionSummary> {
  for (const session of live.values()) yield session.summary()
}
