import { SessionError, SessionErrorCode, SessionForkError } from '../errors.js'
import type { SessionId } from '../ids.js'
import type { Session } from '../session.js'
import { childExists } from './new-session.js'
import type { SessionPersistence } from './persistence-port.js'

/** What the store's durable variants (`createDurable`, `forkDurable`...) need of it. */
export interface DurableStore {
  flush(id: SessionId): Promise<void>
  /** Lets go of a live session as `close` does, without flushing it. */
  letGo(session: Session): void
}

/** `session`, once its header and everything appended are durable; else it is let go and this rejects. */
export async function untilDurable(store: DurableStore, session: Session): Promise<Session> {
  try {
    await store.flush(session.id)
  } catch (error) {
    store.letGo(session)
    throw error
  }
  return session
}

/** `open(id)` for a fork's source: `SESSION_NOT_FOUND` is thrown as a `SessionForkError`. */
export async function openForFork(
  open: (id: SessionId) => Promise<Session>,
  id: SessionId,
): Promise<Session> {
  try {
    return await open(id)
  } catch (error) {
    if (error instanceof SessionError && error.code === SessionErrorCode.SESSION_NOT_FOUND) {
      throw new SessionForkError(SessionErrorCode.SESSION_NOT_FOUND, error.message, error.data)
    }
    throw error
  }
}

/** Throws `SESSION_ALREADY_EXISTS` (a `SessionForkError`) when `persistence` holds `childId`. */
export async function assertNotPersisted(
  persistence: SessionPersistence | undefined,
  childId: SessionId | undefined,
): Promise<void> {
  if (childId !== undefined && (await persistence?.exists(childId))) throw childExists(childId)
}
