import type pg from 'pg'
import type { SessionError } from '../../../session/errors.js'
import type { SessionId } from '../../../session/ids.js'
import type { SessionEvent } from '../../../session/log/events.js'
import { changedError } from '../rows.js'
import { readEvents, sessionRow } from './reads.js'

/** Where a host's view of a session ends: the seq of its last committed event, and that event if known. */
export interface View {
  readonly seq: number
  readonly last: SessionEvent | undefined
}

/**
 * The events other hosts appended to session `id` after `view`, read in the caller's transaction
 * (one snapshot), in order. `SESSION_CHANGED` when the stored log no longer extends the view: the
 * session was removed, cut shorter, or its event at the view's end is another one (a rewind on
 * another host, then appends past this view's length).
 */
export async function appendedSince(
  client: pg.ClientBase,
  id: SessionId,
  view: View,
): Promise<SessionEvent[]> {
  const row = await sessionRow(client, id)
  if (!row) throw changedError(id, 'it was deleted')
  if (row.lastSeq < view.seq) {
    throw changedError(id, `its stored log ends at seq ${row.lastSeq}, this host's view at ${view.seq}`)
  }
  const events: SessionEvent[] = []
  const from = view.last !== undefined && view.seq > 0 ? view.seq : view.seq + 1
  if (from > row.lastSeq) return events
  await readEvents(client, { id, row }, from, (event) => {
    if (event.seq === view.seq && view.last !== undefined) {
      if (event.type !== view.last.type || event.time !== view.last.time)
        throw changedError(id, `its event ${view.seq} is not the one this host has: it was rewound`)
      return true
    }
    events.push(event)
    return true
  })
  return events
}

/**
 * A writer's view of its session's stored log: where it ends (the version the writer expects the
 * row to have), and the events other hosts appended past what the store has taken in, read and not
 * yet handed over.
 */
export class StoredView {
  /** Read past the view and not yet taken by the store (the view's `seq` counts them). */
  private unread: SessionEvent[] = []
  /** Another host replaced or removed the stored log: this view cannot be extended. */
  changed: SessionError | undefined

  constructor(
    /** The seq of the last committed event. */
    public seq: number,
    /** That event (undefined after a cut): a catch-up checks the stored one is still it. */
    private last: SessionEvent | undefined,
  ) {}

  /** This host committed through `seq` (`last`: that event, undefined when not known). */
  committed(seq: number, last: SessionEvent | undefined): void {
    this.seq = seq
    this.last = last
  }

  /** Reads what others appended past the view in `client`'s transaction; the last event read. */
  async catchUp(client: pg.ClientBase, id: SessionId): Promise<SessionEvent | undefined> {
    const events = await appendedSince(client, id, { seq: this.seq, last: this.last })
    const last = events[events.length - 1]
    if (!last) return undefined
    this.unread.push(...events)
    this.committed(last.seq, last)
    return last
  }

  /** The events read and not yet taken, in order (and forgets them). */
  take(): SessionEvent[] {
    return this.unread.splice(0)
  }

  /** Whether there is something for the store: events, or the change. */
  get news(): boolean {
    return this.changed !== undefined || this.unread.length > 0
  }
}
