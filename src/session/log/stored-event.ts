import type { Cost, JsonObject, SessionEvent, TokenUsage } from './events.js'
import { deepFreeze } from './frozen.js'

/** Reads the data of one stored event back from wherever its backend keeps it. May throw. */
export type EventDataReader = () => JsonObject

/** What a stored event holds in memory besides its kept data: `seq`, `type` and `time`. */
interface StoredEventHead {
  readonly seq: number
  readonly type: SessionEvent['type']
  readonly time: string
}

/**
 * A stored event whose `data` is not kept in memory: `seq`, `type` and `time` are held, `data` is
 * read back through `read` when someone looks at it (then deeply frozen, and kept only as long as
 * someone holds it). A backend hands these out for large events it read, so a loaded session does
 * not hold every body of its log. To its readers it is an ordinary frozen event: the same keys in
 * the same order (`JSON.stringify` gives the stored line), equal to the event as first read.
 * `kept` ({@link keptDataFrom} of the event as read) stays in memory: see {@link keptDataOf}.
 */
export function storedEvent(head: StoredEventHead, read: EventDataReader, kept?: KeptData): SessionEvent {
  const { seq, type, time } = head
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
  const frozen = Object.freeze(event) as SessionEvent
  if (kept) keptData.set(frozen, kept)
  return frozen
}

/**
 * The small fields of an event's data that a stand-in keeps in memory: a step's `usage` and `cost`,
 * a turn's `cost` total. The usage projections (session/usage.ts) walk back over a whole log for
 * them; kept, a session whose steps never reported usage does not read every body back to learn it.
 */
export interface KeptData {
  readonly usage?: TokenUsage
  readonly cost?: Cost
}

const keptData = new WeakMap<SessionEvent, KeptData>()

/** What a backend keeps of `event`'s data when it stands in for it ({@link storedEvent}). */
export function keptDataFrom(event: SessionEvent): KeptData | undefined {
  if (event.type !== 'assistant/message' && event.type !== 'turn/end') return undefined
  const { cost } = event.data
  const usage = event.type === 'assistant/message' ? event.data.usage : undefined
  return deepFreeze({ ...(usage !== undefined && { usage }), ...(cost !== undefined && { cost }) })
}

/**
 * The fields of `event`'s data a stand-in kept in memory ({@link KeptData}), read without reading
 * its data back; undefined for any other event (its `data` is at hand).
 */
export function keptDataOf(event: SessionEvent): KeptData | undefined {
  return keptData.get(event)
}

/** The line a backend lends while a listener hears the event parsed from it (see {@link withStoredLine}). */
let lent: { readonly event: SessionEvent; readonly line: Uint8Array } | undefined

/**
 * The UTF-8 JSON text `event` was parsed from, exactly as its backend stored it (`JSON.parse` of it
 * gave `event`), while the backend lends it: only during the synchronous part of the call in which
 * the backend hands the event to a listener as it reads it back ({@link withStoredLine}). Undefined
 * at any other time, for any other event (a stand-in, a live one), and from a backend that does not
 * store text. The bytes may be reused once the call returned: copy what is kept.
 */
export function storedLineOf(event: SessionEvent): Uint8Array | undefined {
  return lent !== undefined && lent.event === event ? lent.line : undefined
}

/**
 * For backends: calls `hear()` with `line`, the stored text `event` was just parsed from, reachable
 * as {@link storedLineOf}`(event)`; once `hear` returns or throws it is not any more.
 */
export function withStoredLine<T>(event: SessionEvent, line: Uint8Array, hear: () => T): T {
  const outer = lent
  lent = { event, line }
  try {
    return hear()
  } finally {
    lent = outer
  }
}
