import type { SessionEvent } from './events.js'
import type { ListOptions, SessionHeader, SessionPage } from './header.js'
import type { SessionId } from './ids.js'

/**
 * What the store asks of a persistence backend (service `ctx.persistence`) to bring sessions back.
 * Writing never goes through here: backends persist through the store's lifecycle events.
 */
export interface SessionPersistence {
  /**
   * Opens a persisted session for writing by this process and reads it whole: header and events,
   * after any torn tail was repaired. Resolves undefined when no such session is stored. The
   * backend holds the session (lock, writer) until `session/disposed` or `release`.
   */
  open(id: SessionId): Promise<{ header: SessionHeader; events: SessionEvent[] } | undefined>
  /** Lets go of a session that `open` returned but the store refused (it failed validation). */
  release(id: SessionId): Promise<void>
  /** Whether a session is stored, without reading it. */
  exists(id: SessionId): Promise<boolean>
  /** Stored sessions, newest first, read from headers or a catalog, never whole logs. */
  list(options: ListOptions): Promise<SessionPage>
  /** Removes a stored session (which must not be live). Resolves false when there was none. */
  remove(id: SessionId): Promise<boolean>
  /** Resolves once every queued write, flush and file close has finished. */
  idle(): Promise<void>
}
