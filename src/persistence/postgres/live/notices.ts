import pg from 'pg'
import type { SessionId } from '../../../session/ids.js'

/** The channel every host's appends, cuts and removals are announced on. */
export const NOTICE_CHANNEL = 'dsh_session_writes'
/**
 * The channel of what is not in the log: a note or an answer on the board, a pen let go. Payload
 * `{"session": id}`; a watcher of the session looks again.
 */
export const SIGNAL_CHANNEL = 'dsh_session_signals'
/**
 * The channel of what a host's turn streams before its events are appended (`live/streams.ts`):
 * payload `{session, from, seq, n, update}`.
 */
export const STREAM_CHANNEL = 'dsh_session_streams'

/**
 * Announces, inside the caller's transaction (so it is delivered only if that commits, and after
 * it), that session `id`'s stored log now ends at `seq` (0: removed).
 */
export async function announce(client: pg.ClientBase, id: SessionId, seq: number): Promise<void> {
  await client.query('SELECT pg_notify($1, $2)', [NOTICE_CHANNEL, JSON.stringify({ session: id, seq })])
}

/** Tells the hosts watching `id` that its board or pen changed (inside the caller's transaction, if any). */
export async function signal(client: pg.ClientBase, id: SessionId): Promise<void> {
  await client.query('SELECT pg_notify($1, $2)', [SIGNAL_CHANNEL, JSON.stringify({ session: id })])
}

/** Takes this host's presence lock on `client`; throws when another connection holds it. */
async function holdPresence(client: pg.ClientBase, host: string): Promise<void> {
  const { rows } = await client.query<{ ok: boolean }>(
    'SELECT pg_try_advisory_lock(dsh_host_key($1)) AS ok',
    [host],
  )
  if (!rows[0]?.ok) throw new Error("this host's presence is still held by a connection on its way out")
}

/** How `SessionNotices` reaches the database and what it tells. */
export interface NoticesConfig {
  readonly url: string
  /** How often the versions of the watched sessions are read, in case a notice was missed (ms). */
  readonly checkEveryMs: number
  /** Another host wrote `id` (`seq`: where its log now ends; undefined: look, a notice may be lost). */
  readonly heard: (id: SessionId, seq: number | undefined) => void
  /** The stored versions of `ids` (missing: removed), read through the pool. */
  readonly versions: (ids: readonly SessionId[]) => Promise<Map<SessionId, number>>
  /** The version this host's view of `id` is at, or undefined when it is not live here. */
  readonly viewOf: (id: SessionId) => number | undefined
  /** A watched session's board or pen changed on another host (or this one). */
  readonly signalled: (id: SessionId) => void
  /** A host's turn of a watched session streamed a chunk (this host's own too). */
  readonly streamed?: (id: SessionId, notice: Record<string, unknown>) => void
  /**
   * This host's presence: the key of an advisory lock held on the connection while it is up (the
   * database lets it go with the connection), and what to do each time it is (re)taken.
   */
  readonly presence?: { readonly host: string; readonly held: () => void }
  readonly warn: (message: string) => void
}

/**
 * Other hosts' writes to the sessions this host watches: one dedicated connection `LISTEN`ing on
 * {@link NOTICE_CHANNEL}, opened with the first watch and closed with the last. A notice can be
 * missed (the connection dropped, the server restarted): on every reconnect each watched session
 * is looked at, and every `checkEveryMs` the watched sessions' versions are read and any that
 * differs from this host's view is looked at too.
 */
export class SessionNotices {
  private readonly watched = new Map<SessionId, number>()
  private client: pg.Client | undefined
  private connecting: Promise<void> | undefined
  private retry: NodeJS.Timeout | undefined
  private delay = 100
  private timer: NodeJS.Timeout | undefined
  private checking = false
  private ended = false

  constructor(private readonly config: NoticesConfig) {}

  /** Follows `id` until the returned function is called (watches of one id are counted). */
  watch(id: SessionId): () => void {
    this.watched.set(id, (this.watched.get(id) ?? 0) + 1)
    this.start()
    let stopped = false
    return () => {
      if (stopped) return
      stopped = true
      const left = (this.watched.get(id) ?? 1) - 1
      if (left > 0) this.watched.set(id, left)
      else this.watched.delete(id)
      if (this.watched.size === 0) this.stop()
    }
  }

  /** Closes the connection for good. */
  async end(): Promise<void> {
    this.ended = true
    await this.stop()
  }

  private start(): void {
    if (this.ended) return
    this.timer ??= setInterval(() => void this.check(), this.config.checkEveryMs).unref()
    if (!this.client && !this.connecting && !this.retry) this.connecting = this.connect()
  }

  private async stop(): Promise<void> {
    clearInterval(this.timer)
    clearTimeout(this.retry)
    this.timer = undefined
    this.retry = undefined
    // Let go at once: a watch that comes meanwhile opens another (a connection still being made
    // ends itself when it finds nothing watched, else is kept).
    const client = this.client
    this.client = undefined
    await this.connecting
    await client?.end().catch(() => {})
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.config.url,
      keepAlive: true,
      connectionTimeoutMillis: 10_000,
      application_name: 'dsh-acp notices',
    })
    client.on('error', (error) => this.lost(client, error))
    client.on('end', () => this.lost(client, new Error('the connection ended')))
    client.on('notification', (message) => this.notified(message.channel, message.payload))
    try {
      await client.connect()
      await client.query(`LISTEN ${NOTICE_CHANNEL}; LISTEN ${SIGNAL_CHANNEL}; LISTEN ${STREAM_CHANNEL}`)
      const presence = this.config.presence
      // A try: a connection of this host's that is not quite dead yet may hold it still (then this
      // connection is given up, and the next one tries again).
      if (presence) await holdPresence(client, presence.host)
    } catch (error) {
      this.connecting = undefined
      client.removeAllListeners()
      client.on('error', () => {})
      await client.end().catch(() => {})
      this.again(error as Error)
      return
    }
    this.connecting = undefined
    if (this.watched.size === 0 || this.ended) {
      await client.end().catch(() => {})
      return
    }
    this.client = client
    this.delay = 100
    this.config.presence?.held()
    // Whatever was written while no connection listened.
    for (const id of this.watched.keys()) {
      this.config.heard(id, undefined)
      this.config.signalled(id)
    }
  }

  /**
   * Sends `payload` on `channel` through the LISTEN connection (in the order of the calls); not
   * sent while the connection is down. Never rejects.
   */
  send(channel: string, payload: string): void {
    this.client?.query('SELECT pg_notify($1, $2)', [channel, payload]).catch(() => {})
  }

  /** Whether the connection is up (and this host's presence lock held on it). */
  get listening(): boolean {
    return this.client !== undefined
  }

  private lost(client: pg.Client, error: Error): void {
    if (this.client !== client) return
    this.client = undefined
    client.removeAllListeners()
    client.on('error', () => {})
    this.again(error)
  }

  private again(error: Error): void {
    if (this.ended || this.watched.size === 0) return
    this.config.warn(
      `postgres: listening for other hosts' writes failed (${error.message}); again in ${this.delay} ms`,
    )
    this.retry = setTimeout(() => {
      this.retry = undefined
      this.start()
    }, this.delay).unref()
    this.delay = Math.min(this.delay * 2, 5000)
  }

  private notified(channel: string, payload: string | undefined): void {
    let notice: { session?: unknown; seq?: unknown } & Record<string, unknown>
    try {
      notice = JSON.parse(payload ?? '')
    } catch {
      return
    }
    const { session, seq } = notice
    if (typeof session !== 'string' || !this.watched.has(session)) return
    const id = session as SessionId
    if (channel === STREAM_CHANNEL) {
      this.config.streamed?.(id, notice)
      return
    }
    if (channel === SIGNAL_CHANNEL) {
      this.config.signalled(id)
      return
    }
    if (typeof seq !== 'number') return
    if (seq > 0 && seq === this.config.viewOf(id)) return
    this.config.heard(id, seq)
  }

  /** The safety net: the watched sessions whose stored version is not this host's view. */
  private async check(): Promise<void> {
    if (this.checking || this.watched.size === 0) return
    this.checking = true
    try {
      const ids = [...this.watched.keys()]
      const versions = await this.config.versions(ids)
      for (const id of ids) {
        const view = this.config.viewOf(id)
        if (view !== undefined && versions.get(id) !== view) this.config.heard(id, versions.get(id) ?? 0)
      }
    } catch {
      // The database is away: the next check (or the reconnect) looks again.
    } finally {
      this.checking = false
    }
  }
}
