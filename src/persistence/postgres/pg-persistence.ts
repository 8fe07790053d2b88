import type { Context, Logger } from 'cordis'
import type pg from 'pg'
import { SessionError, SessionErrorCode } from '../../session/errors.js'
import type { ListOptions, SessionHeader, SessionPage, SessionSummary } from '../../session/header.js'
import type { SessionId } from '../../session/ids.js'
import type { SessionEvent } from '../../session/log/events.js'
import type { Session } from '../../session/session.js'
import type {
  SessionPersistence,
  StoredEventListener,
  StoredEventVisitor,
} from '../../session/store/persistence-port.js'
import { type DisposeReason, inheritedEventCount } from '../../session/store/store.js'
import { BLOB_GRACE_MS } from '../blobs/blob-collector.js'
import { WriterRegistry } from '../writer-registry.js'
import { PgBlobs } from './blobs.js'
import { PgBoard } from './live/board.js'
import { HostWatches } from './live/host-watches.js'
import { PgStreams } from './live/streams.js'
import { describeDatabase, type PostgresConnectionConfig, PostgresPool } from './pool.js'
import { listStored } from './reads/list.js'
import { corruptRow, readEvents, sessionRow } from './reads/reads.js'
import { databaseError } from './rows.js'
import { migrateAt } from './schema/schema.js'
import { removeSession } from './writes/remove.js'
import { PgSessionWriter, type WriterEnv } from './writes/session-writer.js'

/** `--store postgres://…`: the PostgreSQL backend's configuration. */
export type PostgresPersistenceConfig = PostgresConnectionConfig & {
  /** How young a checkpoint blob is spared when blobs are collected. Default {@link BLOB_GRACE_MS}. */
  readonly blobGraceMs?: number
}

/**
 * The PostgreSQL backend, service `ctx.persistence`: one row per session (`dsh_sessions`: header,
 * listing columns, version, fork reference) and one per event (`dsh_events`, the JSONL line as
 * `json`), written only through the store's lifecycle events, each append committed before the
 * store's flush resolves. Several hosts may share one database: the session row's version and the
 * `(session, seq)` key order their appends, and the pen is an advisory lock. See README.md here.
 */
export class PostgresPersistence implements SessionPersistence {
  private readonly db: PostgresPool
  private readonly logger: Logger
  private readonly env: WriterEnv
  /** Resolves once the schema is migrated; every operation waits for it. */
  readonly ready: Promise<void>
  /** File checkpoints' content (`dsh_blobs`), collected after each `remove` (blobs.ts). */
  readonly blobs: PgBlobs
  /** The writers of this process's sessions. */
  private readonly writers: WriterRegistry<PgSessionWriter>
  private ended: Promise<void> | undefined
  private readonly watches: HostWatches
  /**
   * The notice board between hosts (`live/board.ts`): presence and questions of a session shared
   * across hosts. Absent with `live: false` (nothing is heard from other hosts then).
   */
  readonly board: PgBoard | undefined
  /** What a turn streams, passed between hosts (`live/streams.ts`); absent with `live: false`. */
  readonly streams: PgStreams | undefined
  /** A prompt waits for another host's pen (let go: signalled; a dead host's: a retry finds it free). */
  readonly watchesPens: boolean
  /** The database as errors name it: host, port and database, never the password. */
  private readonly where: string

  constructor(ctx: Context, config: PostgresPersistenceConfig) {
    this.logger = ctx.logger('persistence')
    this.where = describeDatabase(config.url)
    this.db = new PostgresPool(config, (message) => this.logger.warn(message))
    this.ready = migrateAt(this.db, this.where)
    // Reported by every operation that waits for it; not an unhandled rejection meanwhile.
    this.ready.catch(() => {})
    this.blobs = new PgBlobs(this.db, this.ready, config.blobGraceMs ?? BLOB_GRACE_MS)
    this.env = {
      db: this.db,
      ready: this.ready,
      fail: (id, error) => {
        this.logger.error(error.message)
        ctx.sessions.fail(id, error)
      },
      warn: (message) => this.logger.warn(message),
      summary: (id) => ctx.sessions.get(id)?.summary(),
      lookAgain: (id) => this.watches.heard(id),
    }
    const live = config.live ?? true
    this.watchesPens = live
    this.board = live
      ? new PgBoard({
          db: this.db,
          ready: this.ready,
          listening: () => this.watches.listening,
          warn: (message) => this.logger.warn(message),
        })
      : undefined
    const board = this.board
    this.watches = new HostWatches(config, this.db, {
      writerOf: (id) => this.writerOfLive(id),
      log: this.logger,
      presence: board && { host: board.host, held: () => board.held() },
    })
    this.streams = board && new PgStreams(board.host, (payload) => this.watches.publish(payload))
    const streams = this.streams
    if (streams) this.watches.hearStreams((id, notice) => streams.hear(id, notice))
    ctx.on('session/created', (session) => this.created(session))
    this.writers = new WriterRegistry(ctx, (message) => this.logger.error(message))
    ctx.on('session/disposed', (session, reason) => this.disposed(session.id, reason))
    ctx.on('dispose', () => {
      for (const id of this.writers.ids()) this.disposed(id, 'stopped')
      const closed = Promise.allSettled([
        this.writers.idle(),
        this.blobs.idle(),
        this.watches.end(),
        this.board?.end(),
      ])
      this.ended = closed.then(() => this.db.end())
    })
  }

  private created(session: Session): void {
    const { id, header } = session
    const parentId = header.parentSession
    const parent = parentId !== undefined ? this.writers.get(parentId) : undefined
    const inherited = inheritedEventCount(session)
    const base =
      parent && parentId !== undefined && inherited > 0
        ? { session: parentId, length: inherited, committed: () => parent.flush() }
        : undefined
    this.writers.set(id, PgSessionWriter.creating(this.env, header, session.events(), base))
  }

  private disposed(id: SessionId, reason: DisposeReason): void {
    this.writers.close(id, reason !== 'deleted')
  }

  async idle(): Promise<void> {
    await Promise.allSettled([this.writers.idle(), this.blobs.idle()])
    await this.ended
  }

  /** Runs `work` on a connection inside a read-only, repeatable-read transaction: one snapshot. */
  private async snapshot<T>(
    id: SessionId,
    op: string,
    work: (client: pg.ClientBase) => Promise<T>,
  ): Promise<T> {
    await this.ready
    try {
      return await this.db.snapshot(work)
    } catch (error) {
      throw databaseError(id, op, error)
    }
  }

  async open(
    id: SessionId,
    onEvent?: StoredEventListener,
  ): Promise<{ header: SessionHeader; events: SessionEvent[] } | undefined> {
    await this.writers.closed(id)
    const stored = await this.snapshot(id, 'read', async (client) => {
      const row = await sessionRow(client, id)
      if (!row) return undefined
      const events: SessionEvent[] = []
      await readEvents(client, { id, row }, 1, (event) => {
        events.push(event)
        return onEvent?.(event, row.header)
      })
      if (events.length !== row.lastSeq)
        throw corruptRow(id, events.length + 1, `event ${events.length + 1} is missing`)
      return { header: row.header, events }
    })
    if (!stored) return undefined
    const { header, events } = stored
    this.writers.setOpened(
      id,
      PgSessionWriter.opened(this.env, header, events.length, events[events.length - 1]),
    )
    return stored
  }

  async visit(id: SessionId, from: number, visit: StoredEventVisitor): Promise<SessionHeader | undefined> {
    // What `visit` throws is its own, passed on as it is; the rest names the session.
    let failure: { error: unknown } | undefined
    try {
      return await this.snapshot(id, 'read', async (client) => {
        const row = await sessionRow(client, id)
        if (!row) return undefined
        await readEvents(client, { id, row }, from, (event) => {
          const failed = (error: unknown) => {
            failure = { error }
            throw error
          }
          try {
            const more = visit(event, row.header)
            return typeof more === 'boolean' ? more : more.catch(failed)
          } catch (error) {
            return failed(error)
          }
        })
        return row.header
      })
    } catch (error) {
      throw failure ? failure.error : error
    }
  }

  async release(id: SessionId): Promise<void> {
    this.disposed(id, 'closed')
    await this.writers.closed(id)
  }

  async exists(id: SessionId): Promise<boolean> {
    await this.ready
    try {
      const { rowCount } = await this.db.query('SELECT 1 FROM dsh_sessions WHERE id = $1', [id])
      return rowCount === 1
    } catch (error) {
      throw databaseError(id, 'read', error)
    }
  }

  async list(
    options: ListOptions,
    live?: (id: SessionId) => SessionSummary | undefined,
  ): Promise<SessionPage> {
    await this.ready
    const liveHere = this.writers.ids()
    return listStored(this.db, options, liveHere, live)
  }

  /** Deletes a session; refused with `SESSION_LOCKED` while it is live here or another host holds its pen. */
  async remove(id: SessionId): Promise<boolean> {
    await this.ready
    await this.writers.closed(id)
    if (this.writers.has(id)) {
      throw new SessionError(SessionErrorCode.SESSION_LOCKED, `session ${id} is being written`, {
        sessionId: id,
        pid: process.pid,
      })
    }
    try {
      const removed = await this.db.transaction((client) => removeSession(client, id))
      if (removed) this.blobs.collectSoon((message) => this.logger.warn(message))
      return removed
    } catch (error) {
      throw databaseError(id, 'delete', error)
    }
  }

  takePen(id: SessionId): SessionEvent[] {
    return this.writerOf(id).takePen()
  }

  acquirePen(id: SessionId): Promise<SessionEvent[]> {
    try {
      return this.writerOf(id).acquirePen()
    } catch (error) {
      return Promise.reject(error)
    }
  }

  refresh(id: SessionId): SessionEvent[] {
    return this.writerOfLive(id)?.refresh() ?? []
  }

  /** Other hosts' writes to `id`, as their notices come (and the safety-net check finds them). */
  watch(id: SessionId, onChange: () => void): () => void {
    return this.watches.watch(id, onChange)
  }

  private writerOfLive(id: SessionId): PgSessionWriter | undefined {
    return this.writers.any(id)
  }

  releasePen(id: SessionId): Promise<void> {
    return this.writers.any(id)?.releasePen() ?? Promise.resolve()
  }

  private writerOf(id: SessionId): PgSessionWriter {
    const writer = this.writers.any(id)
    if (!writer) {
      throw new SessionError(SessionErrorCode.SESSION_NOT_LIVE, `session ${id} is not open in this process`, {
        sessionId: id,
      })
    }
    return writer
  }
}

/**
 * The cordis plugin providing `ctx.persistence` on PostgreSQL. Plug it after the store:
 * `ctx.plugin(sessionsPlugin); ctx.plugin(postgresPersistencePlugin, { url })`.
 */
export function postgresPersistencePlugin(ctx: Context, config: PostgresPersistenceConfig): void {
  ctx.set('persistence', new PostgresPersistence(ctx, config))
}
postgresPersistencePlugin.inject = ['sessions']
postgresPersistencePlugin.reusable = false
