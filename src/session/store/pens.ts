import { SessionError, SessionErrorCode } from '../errors.js'
import type { SessionId } from '../ids.js'
import type { SessionEvent } from '../log/events.js'
import type { Session } from '../session.js'
import type { SessionPersistence } from './persistence-port.js'

/**
 * One hold of a session's pen: the right to append to it, which one process at a time has (see
 * `SessionStore.takePen`). Holds nest: the pen is let go when the last one is released.
 */
export interface SessionPen {
  /** What taking the pen caught up on: the events other processes had appended, now in the log. */
  readonly caughtUp: readonly SessionEvent[]
  /**
   * Releases this hold (a second call does nothing). The last hold's release resolves once
   * everything appended is durable and the pen is let go.
   */
  release(): Promise<void>
}

/** A run of events other processes appended, caught up on and not yet taken (`takeCaughtUp`). */
export interface CaughtUpRange {
  readonly from: number
  readonly to: number
}

/**
 * The pens of a store's live sessions. A session that is merely open holds nothing; a process
 * takes the pen to append and lets it go once that is durable. An append made without a hold
 * takes one itself, released after the current burst of work (`setImmediate`): a title, a
 * configuration change, an MCP notice. Taking the pen catches the log up on what other processes
 * appended since (the backend checks the file still ends where this process's view ends).
 */
export class Pens {
  /**
   * Holds by session id (a live object replaced by another of the same id, as a rewind does, keeps
   * them); an entry is dropped when its session leaves memory, so a late release of a hold of a
   * closed session does nothing to a later load of the id.
   */
  private readonly holds = new Map<SessionId, { count: number }>()
  /** Open turns another process started (loaded or caught up on), by session. */
  private readonly foreignTurns = new WeakMap<Session, number>()
  private readonly unshown = new WeakMap<Session, CaughtUpRange[]>()
  /** The holds appends took by themselves. */
  private readonly implicit = new Map<Session, SessionPen>()

  constructor(
    private readonly persistence: () => SessionPersistence | undefined,
    /** Told of each run of events caught up on; true when it showed them to every client. */
    private readonly shown: (session: Session, events: readonly SessionEvent[]) => boolean = () => false,
  ) {}

  /** True while this process holds the pen of `session`. */
  held(session: Session): boolean {
    return this.holds.has(session.id)
  }

  /** The session left memory (closed, deleted, the store stopped): its holds go with it. */
  forget(session: Session): void {
    this.holds.delete(session.id)
    this.implicit.delete(session)
  }

  /** See `SessionStore.takePen`. */
  take(session: Session): SessionPen {
    const entry = this.holds.get(session.id)
    if (entry === undefined) return this.took(session, this.persistence()?.takePen?.(session.id) ?? [])
    entry.count++
    return this.hold(session.id, entry, [])
  }

  /** The pen was just taken for `session`, the backend having caught up on `appended`: the first hold. */
  private took(session: Session, appended: readonly SessionEvent[]): SessionPen {
    const entry = { count: 1 }
    this.holds.set(session.id, entry)
    try {
      const caughtUp = this.adopt(session, appended)
      this.endForeignTurn(session)
      return this.hold(session.id, entry, caughtUp)
    } catch (error) {
      this.holds.delete(session.id)
      void this.persistence()?.releasePen?.(session.id)
      throw error
    }
  }

  private hold(id: SessionId, entry: { count: number }, caughtUp: readonly SessionEvent[]): SessionPen {
    let released: Promise<void> | undefined
    return {
      caughtUp,
      release: () => {
        released ??= this.release(id, entry)
        return released
      },
    }
  }

  /**
   * See `SessionStore.acquirePen`: as `take`, awaiting a backend that must ask for the pen
   * (`acquirePen`), so that a refusal comes before the work it would hold up.
   */
  async acquire(session: Session): Promise<SessionPen> {
    const persistence = this.persistence()
    if (this.holds.has(session.id) || !persistence?.acquirePen) return this.take(session)
    const appended = await persistence.acquirePen(session.id)
    const entry = this.holds.get(session.id)
    if (entry) {
      // Taken here meanwhile (an append of this process): one more hold of it.
      entry.count++
      return this.hold(session.id, entry, this.adopt(session, appended))
    }
    return this.took(session, appended)
  }

  /**
   * The hook before each append: an append without a hold takes one for the moment, released by
   * the next flush of the session (once durable) or after the current burst of work.
   */
  willAppend(session: Session): void {
    if (this.holds.has(session.id) || !this.persistence()?.takePen) return
    const pen = this.take(session)
    this.implicit.set(session, pen)
    // A failed release (the write behind it failed) is the session's write failure, which its next
    // flush reports: not an unhandled rejection here.
    setImmediate(() => void this.releaseImplicit(session, pen).catch(() => {}))
  }

  /** Releases the hold an append took by itself, if it is still `pen` (any, without `pen`). */
  releaseImplicit(session: Session, pen?: SessionPen): Promise<void> {
    const held = this.implicit.get(session)
    if (!held || (pen !== undefined && held !== pen)) return Promise.resolve()
    this.implicit.delete(session)
    return held.release()
  }

  /** Without the pen, takes in what other processes appended (see `SessionPersistence.refresh`). */
  refresh(session: Session): void {
    if (this.holds.has(session.id)) return
    this.adopt(session, this.persistence()?.refresh?.(session.id) ?? [])
  }

  /** A loaded log that ends inside a turn: its writer may still be at it, or died. */
  loadedInTurn(session: Session): void {
    const turn = session.openTurn
    if (turn === undefined) return
    this.foreignTurns.set(session, turn)
    try {
      void this.take(session).release()
    } catch (error) {
      // Its writer is at work: the turn is theirs to end. Caught up on later.
      if (!(error instanceof SessionError) || error.code !== SessionErrorCode.SESSION_LOCKED) throw error
    }
  }

  /** The runs caught up on since the last call, oldest first (and forgets them). */
  takeCaughtUp(session: Session): CaughtUpRange[] {
    const ranges = this.unshown.get(session) ?? []
    this.unshown.delete(session)
    return ranges
  }

  private async release(id: SessionId, entry: { count: number }): Promise<void> {
    if (this.holds.get(id) !== entry) return
    if (--entry.count > 0) return
    this.holds.delete(id)
    await this.persistence()?.releasePen?.(id)
  }

  private adopt(session: Session, events: readonly SessionEvent[]): readonly SessionEvent[] {
    if (events.length === 0) return events
    const from = session.lastSeq + 1
    try {
      session.adopt(events)
    } finally {
      const adopted = events.slice(0, Math.max(0, session.lastSeq - from + 1))
      if (adopted.length > 0 && !this.shown(session, adopted)) {
        const ranges = this.unshown.get(session) ?? []
        const last = ranges[ranges.length - 1]
        if (last && last.to === from - 1) ranges[ranges.length - 1] = { from: last.from, to: session.lastSeq }
        else ranges.push({ from, to: session.lastSeq })
        this.unshown.set(session, ranges)
      }
    }
    // No turn of this process is open without its pen: an open turn now is another process's.
    const turn = session.openTurn
    if (turn !== undefined) this.foreignTurns.set(session, turn)
    return events
  }

  /**
   * With the pen just taken: a turn another process left open is over (its writer died holding the
   * pen, or the pen would not have been free), as a load ends one: `turn/end` `interrupted`.
   */
  private endForeignTurn(session: Session): void {
    const turn = session.openTurn
    if (turn === undefined || this.foreignTurns.get(session) !== turn) return
    this.foreignTurns.delete(session)
    session.append({ type: 'turn/end', data: { turn, reason: 'interrupted' } })
  }
}
