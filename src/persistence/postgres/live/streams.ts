import type { SessionId } from '../../../session/ids.js'
import type { SessionStreams, StreamedChunk } from '../../../session/store/persistence-port.js'

/** A NOTIFY payload is at most 8000 bytes: a chunk that does not fit is not streamed. */
const MAX_PAYLOAD_BYTES = 7900
/** Chunks kept per session until the audience reads them (a slow reader loses the oldest). */
const MAX_BUFFERED = 2000

interface Heard {
  readonly from: string
  readonly chunk: StreamedChunk
}

/**
 * {@link SessionStreams} between hosts on one database: a chunk is a NOTIFY on the stream channel
 * (`{session, from, seq, n, update}`, `from` being this host's id on the board), sent on the
 * LISTEN connection, so one host's chunks arrive in the order it sent them. The chunks of other
 * hosts are kept per watched session until read. Best effort by design: a chunk too large for a
 * NOTIFY, or sent while the connection is down, is not streamed; the reader sends what its
 * clients were not streamed when the message is appended.
 */
export class PgStreams implements SessionStreams {
  private readonly heard = new Map<SessionId, Heard[]>()
  private readonly listeners = new Map<SessionId, Set<() => void>>()

  constructor(
    private readonly host: string,
    private readonly send: (payload: string) => void,
  ) {}

  publish(id: SessionId, chunk: StreamedChunk): void {
    const payload = JSON.stringify({
      session: id,
      from: this.host,
      seq: chunk.seq,
      n: chunk.n,
      update: chunk.update,
    })
    if (Buffer.byteLength(payload) <= MAX_PAYLOAD_BYTES) this.send(payload)
  }

  end(_id: SessionId): void {
    // Nothing to take down: a NOTIFY is gone once delivered.
  }

  read(id: SessionId, writers: readonly string[]): StreamedChunk[] {
    const heard = this.heard.get(id)
    if (!heard) return []
    this.heard.delete(id)
    return heard.filter((h) => writers.includes(h.from)).map((h) => h.chunk)
  }

  forget(id: SessionId): void {
    this.heard.delete(id)
  }

  watchChunks(id: SessionId, onChunk: () => void): () => void {
    const listeners = this.listeners.get(id) ?? new Set()
    this.listeners.set(id, listeners)
    listeners.add(onChunk)
    return () => {
      listeners.delete(onChunk)
      if (listeners.size === 0 && this.listeners.get(id) === listeners) this.listeners.delete(id)
    }
  }

  /** A NOTIFY of the stream channel for watched session `id` (its payload parsed). */
  hear(id: SessionId, notice: Record<string, unknown>): void {
    const { from, seq, n, update } = notice
    if (typeof from !== 'string' || from === this.host) return
    if (!Number.isSafeInteger(seq) || !Number.isSafeInteger(n) || update === undefined) return
    const heard = this.heard.get(id) ?? []
    heard.push({ from, chunk: { seq: seq as number, n: n as number, update } })
    if (heard.length > MAX_BUFFERED) heard.shift()
    this.heard.set(id, heard)
    for (const onChunk of this.listeners.get(id) ?? []) onChunk()
  }
}
