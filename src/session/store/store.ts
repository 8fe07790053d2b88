import type { Context } from 'cordis'
import { forkLive, forkSubagentLive, type SessionForkSource } from '../fork/store-forks.js'
import type { ListOptions, SessionHeader, SessionPage, SubagentMarker } from '../header.js'
import { assertSessionId, type SessionId } from '../ids.js'
import {
  type RewindOptions,
  type RewindResult,
  type RewindStore,
  rewindLive,
} from '../rewind/store-rewind.js'
import type { Session } from '../session.js'
import { assertNotPersisted, openForFork, untilDurable } from './durable.js'
import type { CreateOptions } from './new-session.js'
import type { StoredEventListener, StoredEventVisitor } from './persistence-port.js'
import { listSessions, visitLiveEvents } from './reads/live-reads.js'
import { readStoredSession, visitStoredEvents } from './reads/stored-reads.js'
import type { SessionStoreConfig } from './store-core.js'
import { StorePens } from './store-pens.js'

export type { SessionForkSource } from '../fork/store-forks.js'
export { inheritedEventCount, type RewindOptions, type RewindResult } from '../rewind/store-rewind.js'
export type { DisposeReason } from './lifecycle.js'
export type { CreateOptions } from './new-session.js'
export type { SessionStoreConfig } from './store-core.js'

declare module 'cordis' {
  interface Context {
    /** The session store (see {@link SessionStore}). */
    sessions: SessionStore
  }
}

/**
 * The session store, service `ctx.sessions`: live sessions in memory, lifecycle events for
 * persistence backends, and fork. Plug it with {@link sessionsPlugin}. It is deliberately not a
 * cordis `Service` subclass: cordis 3 treats an instance method named `fork` as its own plugin
 * fork hook (and types it so), which the contract's `fork(source, boundary?, child?)` would clash
 * with.
 */
export class SessionStore extends StorePens {
  /**
   * The live session, else the persisted one loaded. Throws `SESSION_NOT_FOUND`. A live session
   * first takes in what other processes appended to it (without the pen: see `refresh`).
   */
  async open(id: SessionId, replay?: StoredEventListener): Promise<Session> {
    const claim = this.borrowed.get(id)
    if (claim) claim.claimed = true
    const live = this.live.get(id)
    if (!live) return this.load(id, replay)
    this.refresh(live)
    return live
  }

  /**
   * Runs `use` on the session, live or stored, and makes what it appended durable; a stored
   * session is made live for the call only and let go afterwards, unless someone opened or loaded
   * it meanwhile. For changes to a session nobody has open (a title, the archive state). Throws
   * `SESSION_NOT_FOUND`.
   */
  async borrow<T>(id: SessionId, use: (session: Session) => T | Promise<T>): Promise<T> {
    assertSessionId(id)
    const live = this.live.get(id)
    if (live && !this.borrowed.has(id)) {
      const result = await use(live)
      await this.flush(id)
      return result
    }
    const claim = this.borrowed.get(id) ?? { users: 0, claimed: false }
    this.borrowed.set(id, claim)
    claim.users++
    try {
      const session = this.live.get(id) ?? (await (this.opening.get(id) ?? this.startLoad(id, undefined)))
      const result = await use(session)
      await this.flush(id)
      return result
    } finally {
      if (--claim.users === 0) {
        this.borrowed.delete(id)
        if (!claim.claimed && this.live.has(id)) await this.close(id).catch(() => undefined)
      }
    }
  }

  /** Whether the session is live here, stored only, or unknown (undefined); changes nothing. */
  async whereIs(id: SessionId): Promise<'live' | 'stored' | undefined> {
    const claim = this.borrowed.get(id)
    if (this.live.has(id)) return claim && !claim.claimed ? 'stored' : 'live'
    if (this.opening.has(id)) return 'stored'
    return (await this.persistence?.exists(id)) ? 'stored' : undefined
  }

  /**
   * Makes a persisted session live (or returns it if it already is). The log is checked against
   * the header and every invariant. A log that ends inside a turn (the process died mid-turn) gets
   * a `turn/end { reason: "interrupted" }`, so the session can go on, unless another process holds
   * the pen (its turn is running there: the log catches up on it later). Loading takes no lock: a
   * session open in another process loads.
   *
   * `replay` hears each stored event once it passed every check, while the log is still being
   * read (what it returns paces the read). It hears nothing when the session was live or being
   * loaded already: then the caller takes the events from the session. A bad line later in the
   * file still fails the load (after `replay` heard the events before it): the session does not
   * become live. An exception from `replay` fails the load with it.
   */
  async load(id: SessionId, replay?: StoredEventListener): Promise<Session> {
    assertSessionId(id)
    const claim = this.borrowed.get(id)
    if (claim) claim.claimed = true
    const existing = this.live.get(id)
    if (existing) return existing
    return this.opening.get(id) ?? this.startLoad(id, replay)
  }

  private startLoad(id: SessionId, replay: StoredEventListener | undefined): Promise<Session> {
    const loading = this.loadFromPersistence(id, replay).finally(() => this.opening.delete(id))
    this.opening.set(id, loading)
    return loading
  }

  private async loadFromPersistence(
    id: SessionId,
    replay: StoredEventListener | undefined,
  ): Promise<Session> {
    const session = await readStoredSession(this.persistence, id, replay, this.host)
    this.admit(session, 'session/loaded')
    // Ended `interrupted` unless its writer is still at work in another process.
    this.pens.loadedInTurn(session)
    return session
  }

  /**
   * Forks `source` through `boundary` (inclusive seq; default its last event) into a new live
   * child, by the Agent Note's rules. The child shares the parent's frozen events (equivalent to a
   * deep copy: nobody can change them), inherits `cwd`, and gets `parentSession` and `seedLength`.
   * Throws `SessionForkError`: `SESSION_NOT_FOUND`, `SESSION_NOT_LIVE`, `SESSION_ALREADY_EXISTS`,
   * `INVALID_BOUNDARY`, `OPEN_TURN` (and `INVALID_SESSION_ID` for a bad child id).
   */
  fork(source: SessionForkSource, boundary?: number, childSessionId?: SessionId): Session {
    return forkLive(this.spawner, source, boundary, childSessionId)
  }

  /**
   * The subagent fork (the seed's subagent rule): forks `source` clipped to its last
   * completed-turn prefix ({@link subagentBoundary}), so it works while the parent's turn is open,
   * where `fork` refuses. The child is stamped with `parentSession`, `seedLength` and `subagent`
   * (which tool call spawned it), and gets `title` when given. Throws `SessionForkError`:
   * `SESSION_NOT_FOUND`, `SESSION_NOT_LIVE`, `SESSION_ALREADY_EXISTS`, `INVALID_SESSION_ID`,
   * `INVALID_SUBAGENT_MARKER`.
   */
  forkSubagent(
    source: SessionForkSource,
    marker: SubagentMarker,
    options: { readonly childSessionId?: SessionId; readonly title?: string } = {},
  ): Session {
    return forkSubagentLive(this.spawner, source, marker, options)
  }

  /**
   * `fork` for callers that must know the child is durable: loads a persisted source that is not
   * live, forks, then waits until the child's header and seed are durable. Checks that a persisted
   * child id is not taken.
   */
  async forkDurable(
    source: SessionForkSource,
    boundary?: number,
    childSessionId?: SessionId,
  ): Promise<Session> {
    const parent = typeof source === 'string' ? await openForFork((id) => this.open(id), source) : source
    await assertNotPersisted(this.persistence, childSessionId)
    return untilDurable(this.durable, this.fork(parent, boundary, childSessionId))
  }

  /** `forkSubagent`, resolved once the child's header and seed are durable (else it is let go). */
  async forkSubagentDurable(
    source: SessionForkSource,
    marker: SubagentMarker,
    options: { readonly childSessionId?: SessionId; readonly title?: string } = {},
  ): Promise<Session> {
    return untilDurable(this.durable, this.forkSubagent(source, marker, options))
  }

  /**
   * Rewinds `source` in place to the closed boundary `boundary` (the fork rules), keeping what it
   * removes as an archived branch session; resolves once both are durable (see `store-rewind.ts`).
   * Throws `SessionForkError` (`SESSION_NOT_FOUND`, `SESSION_NOT_LIVE`, `INVALID_BOUNDARY`,
   * `OPEN_TURN`, `SESSION_ALREADY_EXISTS` for a taken branch id), or the backend's error.
   */
  rewind(source: SessionForkSource, boundary: number, options: RewindOptions = {}): Promise<RewindResult> {
    return rewindLive(this.rewinder, source, boundary, options)
  }

  private get rewinder(): RewindStore {
    return {
      ...this.spawner,
      untilDurable: (session) => untilDurable(this.durable, session),
      close: (session) => this.close(session.id),
      takePen: (session) => this.takePen(session),
      truncate: async (session, count) => {
        await this.ctx.parallel('session/truncate', session, count)
        if (session.writeFailure) throw session.writeFailure
      },
      rewindStored: async (session, branch, marker) =>
        (await this.ctx.serial('session/rewind', session, branch, marker)) === true,
      replace: (previous, next) => {
        this.live.set(next.id, next)
        previous.detach()
      },
    }
  }

  /**
   * `create` for callers that must know the session is durable before they acknowledge it: a
   * session whose header could not be made durable is let go (its id was never handed out).
   */
  async createDurable(id?: SessionId, options: CreateOptions = {}): Promise<Session> {
    return untilDurable(this.durable, this.create(id, options))
  }

  /**
   * Goes through a session's events with `seq >= from` without making it live: a live session's
   * from its log, a stored one's read from persistence without opening it (nothing locked or
   * repaired; a torn tail is not read, events before `from` are not parsed). Each stored event's
   * shape is checked before `visit` hears it; a bad one is `CORRUPT_SESSION`. `visit` answers
   * `false` to stop (a promise of its answer is awaited before the next event). Resolves the
   * header; throws `SESSION_NOT_FOUND` when there is no such session.
   */
  async visitEvents(id: SessionId, from: number, visit: StoredEventVisitor): Promise<SessionHeader> {
    assertSessionId(id)
    const session = this.live.get(id)
    if (session) return visitLiveEvents(session, from, visit)
    return visitStoredEvents(this.persistence, id, from, visit)
  }

  /**
   * Sessions by most recent activity (`updatedAt`), live and persisted, with lineage
   * (`parentSession`). With a backend this reads its headers or catalog; live sessions report their
   * current state and are ordered by it.
   */
  list(options: ListOptions = {}): Promise<SessionPage> {
    // A live session another process appended to is listed as it is now (one lstat each).
    for (const session of this.live.values()) {
      try {
        this.pens.refresh(session)
      } catch {
        // Its file changed under it: the next write says so; the list shows what is here.
      }
    }
    return listSessions(this.persistence, this.live, options)
  }
}

/** The cordis plugin that provides `ctx.sessions`. A function plugin, so cordis never sees `fork`. */
export function sessionsPlugin(ctx: Context, config: SessionStoreConfig = {}): void {
  ctx.set('sessions', new SessionStore(ctx, config))
}
sessionsPlugin.reusable = false
