import type pg from 'pg'
import type { SessionId } from '../../session/ids.js'
import type { SessionEvent } from '../../session/log/events.js'
import { readEvents, sessionRow } from './reads.js'
import { changedError } from './rows.js'

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
  await readEvents(client, id, row, from, (event) => {
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
