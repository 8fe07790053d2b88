import type { Clock } from '../ids.js'
import type { SessionEvent } from '../log/events.js'
import type { Session, SessionHost } from '../session.js'

/** Hears one appended event; see `SessionStore.onAppended`. */
export type AppendListener = (session: Session, event: SessionEvent) => void

/** What the store's live sessions call back: the time they stamp, and the store's append listeners. */
export class StoreHost implements SessionHost {
  /**
   * Who hears each appended event, called synchronously in append order. Not a cordis event: a
   * cordis dispatch costs tens of µs (proxies, an `internal/event` per emit) and runs per event.
   */
  private appendListeners: readonly AppendListener[] = []

  private lastStamp = { ms: Number.NaN, iso: '' }

  /** Set by the store: takes the session's pen when it does not hold it (see `SessionHost.willAppend`). */
  beforeAppend: (session: Session) => void = () => {}

  constructor(private readonly clock: Clock) {}

  willAppend(session: Session): void {
    this.beforeAppend(session)
  }

  /** `clock()` as ISO 8601; events appended within one millisecond share the formatted string. */
  now(): string {
    const ms = this.clock()
    if (ms !== this.lastStamp.ms) this.lastStamp = { ms, iso: new Date(ms).toISOString() }
    return this.lastStamp.iso
  }

  appended(session: Session, event: SessionEvent): void {
    for (const listener of this.appendListeners) listener(session, event)
  }

  /** See `SessionStore.onAppended`. */
  onAppended(listener: AppendListener): () => void {
    this.appendListeners = [...this.appendListeners, listener]
    return () => {
      this.appendListeners = this.appendListeners.filter((l) => l !== listener)
    }
  }
}
