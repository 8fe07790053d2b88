import type { Context } from 'cordis'
import { errorMessage } from '../lib/error-message.js'
import type { SessionId } from '../session/ids.js'
import type { SessionEvent } from '../session/log/events.js'

/** What the registry asks of a backend's writer of one session. */
export interface BackendWriter {
  append(event: SessionEvent): void
  flush(): Promise<void>
  truncate(count: number): Promise<void>
  /** Closes the writer; `keep`: the session stays stored (false: it was deleted). */
  close(keep: boolean): Promise<void>
}

/**
 * The writers of one backend's sessions, as both backends keep them: a writer of a session `open`
 * read waits until the store admits that session (`session/loaded`), then it is live and takes the
 * session's appends, flushes and truncations; a closed writer is awaited (cordis does not await an
 * async dispose) before the session is read or removed again.
 */
export class WriterRegistry<W extends BackendWriter> {
  /** Writers of live sessions. */
  private readonly live = new Map<SessionId, W>()
  /** Writers of sessions `open` returned that the store has not admitted yet. */
  private readonly opened = new Map<SessionId, W>()
  /** Writers being closed. */
  private readonly closing = new Map<SessionId, Promise<void>>()

  constructor(
    ctx: Context,
    private readonly logError: (message: string) => void,
  ) {
    ctx.on('session/loaded', (session) => {
      const writer = this.opened.get(session.id)
      if (!writer) return
      this.opened.delete(session.id)
      this.live.set(session.id, writer)
    })
    const stopHearing = ctx.sessions.onAppended((session, event) => this.live.get(session.id)?.append(event))
    ctx.on('dispose', stopHearing)
    ctx.on('session/flush', async (session) => {
      await this.live.get(session.id)?.flush()
    })
    ctx.on('session/truncate', async (session, count) => this.live.get(session.id)?.truncate(count))
  }

  /** The writer of a live session. */
  get(id: SessionId): W | undefined {
    return this.live.get(id)
  }

  /** The writer of a live session, or of one `open` read that the store has not admitted yet. */
  any(id: SessionId): W | undefined {
    return this.live.get(id) ?? this.opened.get(id)
  }

  /** Whether this process has a writer of `id` (live or not admitted yet). */
  has(id: SessionId): boolean {
    return this.live.has(id) || this.opened.has(id)
  }

  /** The sessions this process has a writer of. */
  ids(): SessionId[] {
    return [...this.live.keys(), ...this.opened.keys()]
  }

  /** Makes `writer` the live writer of `id` (a session created here). */
  set(id: SessionId, writer: W): void {
    this.live.set(id, writer)
  }

  /** Keeps the writer of a session `open` read until the store admits it. */
  setOpened(id: SessionId, writer: W): void {
    this.opened.set(id, writer)
  }

  /** Closes and forgets the writer of `id`, if any; {@link closed} waits for it. */
  close(id: SessionId, keep: boolean): void {
    const writer = this.any(id)
    if (!writer) return
    this.live.delete(id)
    this.opened.delete(id)
    const done = writer
      .close(keep)
      .catch((error) => this.logError(`closing session ${id}: ${errorMessage(error)}`))
      .finally(() => {
        if (this.closing.get(id) === done) this.closing.delete(id)
      })
    this.closing.set(id, done)
  }

  /** Resolves once the writer of `id` that is being closed, if any, has closed. */
  async closed(id: SessionId): Promise<void> {
    await this.closing.get(id)
  }

  /** Resolves when every writer's queued work and every close has finished; never rejects. */
  async idle(): Promise<void> {
    const flushes = [...this.live.values(), ...this.opened.values()].map((w) => w.flush().catch(() => {}))
    await Promise.allSettled([...flushes, ...this.closing.values()])
  }
}
