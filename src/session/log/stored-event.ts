import type { JsonObject, SessionEvent } from './events.js'
import { deepFreeze } from './frozen.js'

/** Reads the data of one stored event back from wherever its backend keeps it. May throw. */
export type EventDataReader = () => JsonObject

/**
 * A stored event whose `data` is not kept in memory: `seq`, `type` and `time` are held, `data` is
 * read back through `read` when someone looks at it (then deeply frozen, and kept only as long as
 * someone holds it). A backend hands these out for large events it read, so a loaded session does
 * not hold every body of its log. To its readers it is an ordinary frozen event: the same keys in
 * the same order (`JSON.stringify` gives the stored line), equal to the event as first read.
 */
export function storedEvent(
  seq: number,
  type: SessionEvent['type'],
  time: string,
  read: EventDataReader,
): SessionEvent {
  let held: WeakRef<JsonObject> | undefined
  const event = { seq, type, time }
  Object.defineProperty(event, 'data', {
    enumerable: true,
    get(): JsonObject {
      const kept = held?.deref()
      if (kept) return kept
      const data = deepFreeze(read())
      held = new WeakRef(data)
      return data
    },
  })
  return Object.freeze(event) as SessionEvent
}
