import type { SessionId } from '../../../session/ids.js'
import { type PostgresConnectionConfig, type PostgresPool, storedVersions } from '../pool.js'
import { type NoticesConfig, SessionNotices, STREAM_CHANNEL } from './notices.js'

/** A live session's writer as the watches use it. */
export interface PolledWriter {
  /** The seq this host's view ends at. */
  readonly view: number
  /** Reads what other hosts appended past the view; true when there is news for `refresh`. */
  poll(): Promise<boolean>
}

/** What the watches need of this host: its writers (to poll), its log, its presence on the board. */
interface WatchingHost {
  readonly writerOf: (id: SessionId) => PolledWriter | undefined
  readonly log: { warn(message: string): void; debug(message: string): void }
  readonly presence?: NoticesConfig['presence'] | undefined
}

/**
 * The port's `watch` for the PostgreSQL backend: the sessions live here, followed through
 * {@link SessionNotices}. A notice (or a missed one found) makes the session's writer poll; when
 * it found something, the session's watchers are told (the store then `refresh`es).
 */
export class HostWatches {
  private readonly hearers = new Map<SessionId, Set<() => void>>()
  private readonly notices: SessionNotices
  private readonly live: boolean
  /** Who hears the chunks other hosts' turns stream (`live/streams.ts`). */
  private streamed: ((id: SessionId, notice: Record<string, unknown>) => void) | undefined

  private readonly writerOf: (id: SessionId) => PolledWriter | undefined
  private readonly log: { warn(message: string): void; debug(message: string): void }

  constructor(config: PostgresConnectionConfig, db: PostgresPool, host: WatchingHost) {
    const { presence } = host
    this.writerOf = host.writerOf
    this.log = host.log
    this.live = config.live ?? true
    this.notices = new SessionNotices({
      url: config.url,
      checkEveryMs: config.checkEveryMs ?? 5000,
      heard: (id) => this.heard(id),
      versions: (ids) => storedVersions(db, ids),
      viewOf: (id) => this.writerOf(id)?.view,
      signalled: (id) => this.tell(id),
      streamed: (id, notice) => this.streamed?.(id, notice),
      ...(presence && { presence }),
      warn: (message) => this.log.warn(message),
    })
  }

  /** See `SessionPersistence.watch`. Nothing is followed with `live: false`. */
  watch(id: SessionId, onChange: () => void): () => void {
    if (!this.live) return () => {}
    const hearers = this.hearers.get(id) ?? new Set()
    this.hearers.set(id, hearers)
    hearers.add(onChange)
    const stop = this.notices.watch(id)
    return () => {
      stop()
      hearers.delete(onChange)
      if (hearers.size === 0 && this.hearers.get(id) === hearers) this.hearers.delete(id)
    }
  }

  /** Passes the chunks turns stream (other hosts' and this one's) to `hear`. */
  hearStreams(hear: (id: SessionId, notice: Record<string, unknown>) => void): void {
    this.streamed = hear
  }

  /** Streams a chunk to the other hosts (see `PgStreams`). */
  publish(payload: string): void {
    this.notices.send(STREAM_CHANNEL, payload)
  }

  /** Whether the LISTEN connection is up (this host's presence held). */
  get listening(): boolean {
    return this.notices.listening
  }

  end(): Promise<void> {
    return this.notices.end()
  }

  /** Another host wrote `id` (or may have): what it appended is read, then the watchers are told. */
  heard(id: SessionId): void {
    const writer = this.writerOf(id)
    if (!writer) return
    writer.poll().then(
      (news) => {
        if (news) this.tell(id)
      },
      (error) => this.log.debug(`catching up on ${id}: ${(error as Error).message}`),
    )
  }

  /** Tells the watchers of `id` to look. */
  private tell(id: SessionId): void {
    for (const onChange of this.hearers.get(id) ?? []) onChange()
  }
}
