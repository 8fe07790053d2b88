import type { Context } from 'cordis'
import { SessionError, SessionErrorCode } from '../errors.js'
import { type ForkSpawner, forkLive, forkSubagentLive, type SessionForkSource } from '../fork/store-forks.js'
import type { ListOptions, SessionHeader, SessionPage, SubagentMarker } from '../header.js'
import {
  assertSessionId,
  type Clock,
  createTimeOrderedIdGenerator,
  type IdGenerator,
  type SessionId,
  systemClock,
} from '../ids.js'
import {
  type RewindOptions,
  type RewindResult,
  type RewindStore,
  rewindLive,
} from '../rewind/store-rewind.js'
import type { Session } from '../session.js'
import { assertNotPersisted, type DurableStore, openForFork, untilDurable } from './durable.js'
import { type ForeignWriteListener, ForeignWrites } from './foreign-writes.js'
import { type DisposeReason, flushSessions } from './lifecycle.js'
import { assertFreeId, type CreateOptions, seededSession } from './new-session.js'
import { awaitPen } from './pen-wait.js'
import { type CaughtUpRange, Pens, type SessionPen } from './pens.js'
import type {
  SessionBoard,
  SessionPersistence,
  SessionStreams,
  StoredEventListener,
  StoredEventVisitor,
} from './persistence-port.js'
import { listSessions, visitLiveEvents } from './reads/live-reads.js'
import { notFound, readStoredSession, visitStoredEvents } from './reads/stored-reads.js'
import { type AppendListener, StoreHost } from './store-host.js'

export type { SessionForkSource } from '../fork/store-forks.js'
export { inheritedEventCount, type RewindOptions, type RewindResult } from '../rewind/store-rewind.js'
export type { ForeignWriteListener } from './foreign-writes.js'
export type { DisposeReason } from './lifecycle.js'
export type { CreateOptions } from './new-session.js'
export type { CaughtUpRange, SessionPen } from './pens.js'
export type { AppendListener } from './store-host.js'

export interface SessionStoreConfig {
  readonly clock?: Clock
  readonly idGenerator?: IdGenerator
  /** cwd for sessions created without one. Default: the process's cwd. */
  readonly defaultCwd?: string
}

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
export class SessionStore {
  private readonly live = new Map<SessionId, Session>()
  private readonly opening = new Map<SessionId, Promise<Session>>()
  /** Sessions `borrow` made live, and whether someone else opened them meanwhile (then they stay). */
  private readonly borrowed = new Map<SessionId, { users: number; claimed: boolean }>()
  private readonly mintId: IdGenerator
  private readonly defaultCwd: string
  private readonly host: StoreHost
  private readonly spawner: ForkSpawner
  private readonly durable: DurableStore
  private readonly pens: Pens
  private readonly foreign: ForeignWrites

  constructor(
    private readonly ctx: Context,
    config: SessionStoreConfig = {},
  ) {
    ctx.on('dispose', () => this.stop())
    this.persistence = ctx.get('persistence') ?? undefined
    ctx.on('internal/service', (name: string) => {
      if (name === 'persistence') this.persistence = ctx.get('persistence') ?? undefined
    })
    const clock = config.clock ?? systemClock
    this.mintId = config.idGenerator ?? createTimeOrderedIdGenerator(clock)
    this.defaultCwd = config.defaultCwd ?? process.cwd()
    this.host = new StoreHost(clock)
    const logger = ctx.logger('sessions')
    this.foreign = new ForeignWrites(
      () => this.persistence,
      (id) => this.live.get(id),
      (session) => this.pens.refresh(session),
      (message) => logger.warn(message),
    )
    this.pens = new Pens(
      () => this.persistence,
      (session, events) => this.foreign.caughtUp(session, events),
    )
    this.host.beforeAppend = (session) => this.pens.willAppend(session)
    this.spawner = {
      live: this.live,
      taken: (id) => this.live.has(id) || this.opening.has(id),
      mintId: this.mintId,
      now: () => this.now(),
      host: this.host,
      admit: (child) => this.admit(child, 'session/created'),
    }
    this.durable = { flush: (id) => this.flush(id), letGo: (session) => this.detach(session, 'closed') }
  }

  /**
   * Calls `listener(session, event)` after each event is appended to a live session, in append
   * order, before `append` returns (an exception propagates to the appender). Returns the function
   * that unsubscribes; a plugin calls it when its scope is disposed.
   */
  onAppended(listener: AppendListener): () => void {
    return this.host.onAppended(listener)
  }

  /**
   * Hears what other processes do to the live sessions: the events they append, taken into the log
   * as soon as the backend reports them (its `watch`) or at the next open or pen, and a stored log
   * they replaced or removed. Returns the function that unsubscribes.
   */
  onForeignWrites(listener: ForeignWriteListener): () => void {
    return this.foreign.listen(listener)
  }

  /** `ctx.persistence`, kept current through cordis's `internal/service` (a service read is slow). */
  private persistence: SessionPersistence | undefined

  /** True when a persistence backend keeps sessions: a closed session can be loaded again. */
  get hasPersistence(): boolean {
    return this.persistence !== undefined
  }

  /** The current time as the store stamps it. */
  now(): string {
    return this.host.now()
  }

  /**
   * Creates a live session. Without `id` the store mints one. `seed` must be a valid log prefix;
   * it is deep-copied and frozen. Throws `INVALID_SESSION_ID`, `SESSION_ALREADY_EXISTS`,
   * `INVALID_SEED`.
   */
  create(id?: SessionId, options: CreateOptions = {}): Session {
    const sessionId = id ?? this.mintId()
    assertSessionId(sessionId)
    assertFreeId(sessionId, this.spawner.taken)
    const defaults = { now: () => this.now(), cwd: this.defaultCwd }
    return this.admit(seededSession(sessionId, options, defaults, this.host), 'session/created')
  }

  /** The live session with this id, or undefined. */
  get(id: SessionId): Session | undefined {
    return this.live.get(id)
  }

  /** Live sessions, in creation order. */
  liveSessions(): Session[] {
    return [...this.live.values()]
  }

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
   * Makes everything appended so far durable: one session, or every live one. Resolves at once
   * without a persistence backend. Rejects with the backend's error when a write failed; that
   * session is then read-only until it is loaded again.
   */
  async flush(id?: SessionId): Promise<void> {
    const targets = id === undefined ? this.liveSessions() : [this.require(id)]
    await flushSessions(this.ctx, targets)
    // Durable now: a pen an append took by itself is let go.
    await Promise.all(targets.map((session) => this.pens.releaseImplicit(session)))
  }

  /**
   * Called by a backend when it could not persist `id`: the session becomes read-only until it is
   * loaded again, and `flush` rejects with this error.
   */
  fail(id: SessionId, error: SessionError): void {
    this.live.get(id)?.markFailed(error)
  }

  /** Flushes and lets go of a live session. Its object becomes stale. Throws `SESSION_NOT_FOUND`. */
  async close(id: SessionId): Promise<void> {
    const session = this.require(id)
    try {
      await this.flush(id)
    } finally {
      this.detach(session, 'closed')
    }
  }

  /**
   * Closes every live session (flushing each) and waits until the backend has closed its files,
   * as at shutdown. Rejects with the first flush failure, after closing everything it can.
   */
  async closeAll(): Promise<void> {
    const results = await Promise.allSettled(this.liveSessions().map((s) => this.close(s.id)))
    await this.persistence?.idle()
    const failed = results.find((r) => r.status === 'rejected')
    if (failed) throw (failed as PromiseRejectedResult).reason
  }

  /** Removes a session from memory and from persistence. Throws `SESSION_NOT_FOUND`. */
  async delete(id: SessionId): Promise<void> {
    assertSessionId(id)
    // A load in flight (a prompt opening the session, say) finishes first, then is let go with it.
    await this.opening.get(id)?.catch(() => {})
    const session = this.live.get(id)
    if (session) this.detach(session, 'deleted')
    const removed = (await this.persistence?.remove(id)) ?? false
    if (!session && !removed) throw notFound(id)
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

  /** The live session, or `SESSION_NOT_FOUND`. */
  require(id: SessionId): Session {
    const session = this.live.get(id)
    if (!session) throw notFound(id)
    return session
  }

  private admit(session: Session, event: 'session/created' | 'session/loaded'): Session {
    this.live.set(session.id, session)
    try {
      this.ctx.emit(event, session)
    } catch (error) {
      this.live.delete(session.id)
      session.detach()
      throw error
    }
    this.foreign.follow(session.id)
    return session
  }

  private detach(session: Session, reason: DisposeReason): void {
    if (this.live.get(session.id) !== session) return
    this.live.delete(session.id)
    this.foreign.unfollow(session.id)
    session.detach()
    this.pens.forget(session)
    this.ctx.emit('session/disposed', session, reason)
  }

  private stop(): void {
    for (const session of this.liveSessions()) this.detach(session, 'stopped')
  }
}

/** The cordis plugin that provides `ctx.sessions`. A function plugin, so cordis never sees `fork`. */
export function sessionsPlugin(ctx: Context, config: SessionStoreConfig = {}): void {
  ctx.set('sessions', new SessionStore(ctx, config))
}
sessionsPlugin.reusable = false
