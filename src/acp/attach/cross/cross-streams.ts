import type {
  Session,
  SessionStore,
  SessionUpdateNotification,
  StreamedChunk,
} from '../../../session/index.js'
import type { Attached } from '../attached.js'
import { streamChunk } from '../live-chunks.js'

interface Followed {
  /** The seq whose chunks are followed, and the `n` of the next one expected. */
  seq: number
  next: number
  /** Chunks read before the events in front of them were caught up here. */
  pending: Pending[]
}

interface Pending {
  readonly seq: number
  readonly update: SessionUpdateNotification
}

/**
 * A turn's text as it streams, across the processes that have its session open (through the
 * store's `streams`): this process passes on its own turn's chunks while another process is
 * attached, and takes in the chunks of other processes' turns. A chunk is shown only when every
 * event before it is in this process's log, and only for a step followed from its first chunk
 * (a process that starts looking mid-step shows that step whole, when its event is appended).
 */
export class CrossStreams {
  /** Per session, the seq and count of this process's last chunk (counted even when not passed on). */
  private readonly own = new Map<string, { seq: number; n: number }>()
  private readonly followed = new Map<string, Followed>()
  /** Per session, the writers the board last named, and the stop of the chunk watch. */
  private readonly writers = new Map<string, readonly string[]>()
  private readonly watching = new Map<string, () => void>()

  constructor(private readonly sessions: SessionStore) {}

  /** A chunk of this process's turn: counted, and passed on when `othersAttached`. */
  published(
    sessionId: string,
    update: SessionUpdateNotification,
    seq: number,
    othersAttached: boolean,
  ): void {
    const last = this.own.get(sessionId)
    const n = last?.seq === seq ? last.n + 1 : 0
    this.own.set(sessionId, { seq, n })
    if (othersAttached) this.sessions.streams?.publish(sessionId, { seq, n, update })
  }

  /** This process's turn of the session ended: its stream is taken down. */
  ended(sessionId: string): void {
    if (!this.own.delete(sessionId)) return
    this.sessions.streams?.end(sessionId)
  }

  /**
   * What the turns of the processes `writers` (as the board names them) streamed since the last
   * look that can be shown now, in order, given that this process's log ends at `lastSeq`.
   */
  look(sessionId: string, writers: readonly string[], lastSeq: number): SessionUpdateNotification[] {
    const streams = this.sessions.streams
    if (!streams || writers.length === 0) return this.ready(sessionId, lastSeq)
    for (const chunk of streams.read(sessionId, writers)) this.take(sessionId, chunk, lastSeq)
    return this.ready(sessionId, lastSeq)
  }

  /** The chunks held for events that are now caught up (the log ends at `lastSeq`). */
  ready(sessionId: string, lastSeq: number): SessionUpdateNotification[] {
    const followed = this.followed.get(sessionId)
    if (!followed || followed.pending.length === 0) return []
    const shown = followed.pending.filter((chunk) => chunk.seq === lastSeq + 1)
    followed.pending = followed.pending.filter((chunk) => chunk.seq > lastSeq + 1)
    return shown.map((chunk) => chunk.update)
  }

  /** Shows `seats` what the turns of `writers` streamed since the last look, as far as it can be now. */
  show(seats: readonly Attached[], sessionId: string, writers: readonly string[]): void {
    this.writers.set(sessionId, writers)
    const session = this.sessions.get(sessionId)
    if (!session) return
    for (const update of this.look(sessionId, writers, session.lastSeq))
      streamChunk(seats, undefined, update, session.lastSeq + 1)
  }

  /** Shows `seats` the chunks held for the events `session` just caught up on. */
  showReady(seats: readonly Attached[], session: Session): void {
    for (const update of this.ready(session.id, session.lastSeq))
      streamChunk(seats, undefined, update, session.lastSeq + 1)
  }

  /** The seq whose chunks another process streams now (a seat attaching now is shown it whole). */
  streamingSeq(sessionId: string): number | undefined {
    return this.followed.get(sessionId)?.seq
  }

  /**
   * Shows `seats()` each chunk of another writer as it arrives, where the store reports chunks
   * apart from its watch (`watchChunks`); a second call does nothing.
   */
  follow(sessionId: string, seats: () => readonly Attached[]): void {
    const watch = this.sessions.streams?.watchChunks?.bind(this.sessions.streams)
    if (!watch || this.watching.has(sessionId)) return
    const stop = watch(sessionId, () => this.show(seats(), sessionId, this.writers.get(sessionId) ?? []))
    this.watching.set(sessionId, stop)
  }

  /** Nobody here follows the session any more. */
  forget(sessionId: string): void {
    this.watching.get(sessionId)?.()
    this.watching.delete(sessionId)
    this.writers.delete(sessionId)
    this.followed.delete(sessionId)
    this.sessions.streams?.forget(sessionId)
  }

  private take(sessionId: string, chunk: StreamedChunk, lastSeq: number): void {
    const update = chunk.update
    if (chunk.seq <= lastSeq || !isUpdate(update, sessionId)) return
    const followed = this.followed.get(sessionId)
    const pending = { seq: chunk.seq, update }
    if (chunk.n === 0) {
      this.followed.set(sessionId, {
        seq: chunk.seq,
        next: 1,
        pending: [...(followed?.pending ?? []), pending],
      })
    } else if (followed?.seq === chunk.seq && followed.next === chunk.n) {
      followed.next++
      followed.pending.push(pending)
    }
  }
}

function isUpdate(value: unknown, sessionId: string): value is SessionUpdateNotification {
  if (!value || typeof value !== 'object') return false
  const { sessionId: id, update } = value as { sessionId?: unknown; update?: unknown }
  return id === sessionId && typeof update === 'object' && update !== null && 'sessionUpdate' in update
}
