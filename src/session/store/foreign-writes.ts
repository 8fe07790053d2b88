import { SessionError, SessionErrorCode } from '../errors.js'
import type { SessionId } from '../ids.js'
import type { SessionEvent } from '../log/events.js'
import type { Session } from '../session.js'
import type { SessionPersistence } from './persistence-port.js'

/** Hears what other processes did to a live session of this process. */
export interface ForeignWriteListener {
  /**
   * `events` another process appended were just taken into the log of `session` (by whatever
   * path: a watch, a pen taken, an open). Returns true when it showed them to every client of this
   * process that has the session open: then they are not kept for `takeCaughtUp`.
   */
  caughtUp(session: Session, events: readonly SessionEvent[]): boolean
  /**
   * Another process replaced (a rewind), cut or removed the stored log of `session`
   * (`SESSION_CHANGED`); `session` still holds this process's view until someone lets go of it.
   */
  changed(session: Session, error: SessionError): void
}

/**
 * The store's side of watching: follows the stored log of each live session (the backend's
 * `watch`), takes in what another process appended as soon as it is told (the store's `refresh`,
 * checked as at a load), and tells the listeners. Without a backend that watches, nothing is
 * followed: what others append is taken in at the next open or pen, as before.
 */
export class ForeignWrites {
  private listeners: readonly ForeignWriteListener[] = []
  private readonly followed = new Map<SessionId, () => void>()

  constructor(
    private readonly persistence: () => SessionPersistence | undefined,
    private readonly live: (id: SessionId) => Session | undefined,
    private readonly refresh: (session: Session) => void,
    private readonly warn: (message: string) => void,
  ) {}

  /** See `SessionStore.onForeignWrites`. */
  listen(listener: ForeignWriteListener): () => void {
    this.listeners = [...this.listeners, listener]
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener)
    }
  }

  /** Starts following `id` (it became live); a second call does nothing. */
  follow(id: SessionId): void {
    if (this.followed.has(id)) return
    const stop = this.persistence()?.watch?.(id, () => this.heard(id))
    if (stop) this.followed.set(id, stop)
  }

  /** Stops following `id` (it left memory). */
  unfollow(id: SessionId): void {
    this.followed.get(id)?.()
    this.followed.delete(id)
  }

  /** Tells the listeners `events` were caught up on; true when one showed them to every client. */
  caughtUp(session: Session, events: readonly SessionEvent[]): boolean {
    let shown = false
    for (const listener of this.listeners) {
      try {
        if (listener.caughtUp(session, events)) shown = true
      } catch (error) {
        this.warn(`showing what another process appended to ${session.id}: ${(error as Error).message}`)
      }
    }
    return shown
  }

  private heard(id: SessionId): void {
    const session = this.live(id)
    if (!session) return
    try {
      this.refresh(session)
    } catch (error) {
      if (error instanceof SessionError && error.code === SessionErrorCode.SESSION_CHANGED) {
        for (const listener of this.listeners) listener.changed(session, error)
        return
      }
      // A bad event: the next pen taken refuses it the same way, to whoever writes.
      this.warn(`following session ${id}: ${(error as Error).message}`)
    }
  }
}
