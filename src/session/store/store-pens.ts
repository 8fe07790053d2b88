import { SessionError, SessionErrorCode } from '../errors.js'
import type { SessionId } from '../ids.js'
import type { Session } from '../session.js'
import { awaitPen } from './pen-wait.js'
import type { CaughtUpRange, SessionPen } from './pens.js'
import type { SessionBoard, SessionStreams } from './persistence-port.js'
import { StoreCore } from './store-core.js'

/**
 * The store's pens and what it follows of other processes: taking, awaiting and letting go of a
 * session's pen, catching up on what they appended, the backend's streams, board and watches.
 */
export abstract class StorePens extends StoreCore {
  /**
   * Takes the pen of a live session: the right to append to it, which one process holds at a
   * time, only while it appends. Synchronous. When another process appended since this process
   * last did, the log first catches up on those events (`caughtUp`; they are kept for
   * {@link takeCaughtUp} too), so what this process appends follows them. Holds nest; release each
   * (the last release resolves once everything appended is durable and the pen is let go). An
   * append without a hold takes one for the moment. Throws `SESSION_LOCKED` (`data.pid`) while
   * another process holds the pen, `SESSION_CHANGED` when its file was replaced or removed there,
   * `CORRUPT_SESSION` when what it appended does not fit. Without a backend with pens it only counts.
   */
  takePen(session: Session): SessionPen {
    return this.pens.take(session)
  }

  /** What turns of other processes stream (see `SessionPersistence.streams`), if it passes that on. */
  get streams(): SessionStreams | undefined {
    return this.persistence?.streams
  }

  /** The store's notice board between processes (see `SessionPersistence.board`), if it has one. */
  get board(): SessionBoard | undefined {
    return this.persistence?.board
  }

  /**
   * Calls `onChange` soon after another process may have changed what it stores of `id` (its log,
   * its pen, its notes on the board); returns the function that stops. Undefined where the
   * backend cannot watch.
   */
  watchStored(id: SessionId, onChange: () => void): (() => void) | undefined {
    return this.persistence?.watch?.(id, onChange)
  }

  /**
   * {@link acquirePen}, but while another process holds the pen and this one follows the session
   * and its pen (a backend that `watchesPens`: the JSONL store, PostgreSQL with live updates), waits
   * until it is let go instead of refusing (`waiting` is told once); see `awaitPen`. Another
   * backend refuses a busy pen, as `acquirePen` does. Rejects with `signal`'s reason when it aborts first.
   */
  awaitPen(session: Session, signal: AbortSignal, waiting: () => void = () => {}): Promise<SessionPen> {
    const persistence = this.persistence
    const watch = persistence?.watchesPens === true ? persistence.watch?.bind(persistence) : undefined
    const follow = watch && ((onChange: () => void) => watch(session.id, onChange))
    return awaitPen(() => this.pens.acquire(session), follow, signal, waiting)
  }

  /**
   * Takes the pen as {@link takePen} does, resolving once it is held: with a backend that must ask
   * for it (a database's lock), the refusal (`SESSION_LOCKED`, `SESSION_CHANGED`) comes here,
   * before any work, and the session stays writable. Take it this way before costly work (a turn).
   */
  acquirePen(session: Session): Promise<SessionPen> {
    return this.pens.acquire(session)
  }

  /**
   * Lets go of the live session `id` when another process replaced, cut (a rewind) or removed its
   * file since this process opened it (`SESSION_CHANGED`), or when a failed write made it
   * read-only (the store was away), so that the next `open` reads it again; for a client that
   * loads it anew. True when it did.
   */
  letGoIfChanged(id: SessionId): boolean {
    const live = this.live.get(id)
    if (!live || this.pens.held(live)) return false
    if (live.writeFailure) {
      // Read-only after a failed write (the database or disk was away): read again, what is stored.
      this.detach(live, 'closed')
      return true
    }
    try {
      this.refresh(live)
      return false
    } catch (error) {
      if (!(error instanceof SessionError) || error.code !== SessionErrorCode.SESSION_CHANGED) throw error
      this.detach(live, 'closed')
      return true
    }
  }

  /** True while this process holds the pen of `session`. */
  holdsPen(session: Session): boolean {
    return this.pens.held(session)
  }

  /**
   * Takes in what other processes appended to a live session since this process's view, without
   * the pen (complete events only; nothing while this process holds the pen).
   */
  refresh(session: Session): void {
    this.pens.refresh(session)
  }

  /**
   * The runs of events this process caught up on (appended by other processes) since the last
   * call, oldest first, and forgets them: what a client of this process has not been shown.
   */
  takeCaughtUp(session: Session): CaughtUpRange[] {
    return this.pens.takeCaughtUp(session)
  }
}
