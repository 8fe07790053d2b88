import type { Context } from 'cordis'
import type { SessionError } from '../errors.js'
import type { ForkSpawner } from '../fork/store-forks.js'
import {
  assertSessionId,
  type Clock,
  createTimeOrderedIdGenerator,
  type IdGenerator,
  type SessionId,
  systemClock,
} from '../ids.js'
import type { Session } from '../session.js'
import type { DurableStore } from './durable.js'
import { type ForeignWriteListener, ForeignWrites } from './foreign-writes.js'
import { type DisposeReason, flushSessions } from './lifecycle.js'
import { assertFreeId, type CreateOptions, seededSession } from './new-session.js'
import { Pens } from './pens.js'
import type { SessionPersistence } from './persistence-port.js'
import { notFound } from './reads/stored-reads.js'
import { type AppendListener, StoreHost } from './store-host.js'

export interface SessionStoreConfig {
  readonly clock?: Clock
  readonly idGenerator?: IdGenerator
  /** cwd for sessions created without one. Default: the process's cwd. */
  readonly defaultCwd?: string
}

/**
 * The core of the session store (see {@link SessionStore}): the live sessions and the ones being
 * opened, the services they share, creation, flushing, closing and deletion.
 */
export abstract class StoreCore {
  protected readonly live = new Map<SessionId, Session>()
  protected readonly opening = new Map<SessionId, Promise<Session>>()
  /** Sessions `borrow` made live, and whether someone else opened them meanwhile (then they stay). */
  protected readonly borrowed = new Map<SessionId, { users: number; claimed: boolean }>()
  protected readonly mintId: IdGenerator
  protected readonly defaultCwd: string
  protected readonly host: StoreHost
  protected readonly spawner: ForkSpawner
  protected readonly durable: DurableStore
  protected readonly pens: Pens
  protected readonly foreign: ForeignWrites

  constructor(
    protected readonly ctx: Context,
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
  protected persistence: SessionPersistence | undefined

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

  /** The live session, or `SESSION_NOT_FOUND`. */
  require(id: SessionId): Session {
    const session = this.live.get(id)
    if (!session) throw notFound(id)
    return session
  }

  protected admit(session: Session, event: 'session/created' | 'session/loaded'): Session {
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

  protected detach(session: Session, reason: DisposeReason): void {
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
