import type { SessionUpdateNotification } from '../../session/index.js'
import type { Answerer } from './questions/shared-questions.js'
import type { Seat } from './seat.js'

/** A connection attached to one session: its seat and what its live output stands at. */
export interface Attached extends Seat {
  /** The connection (its call scope): one seat per connection and session. */
  readonly owner: object
  /** The seq of the event whose chunks it was streamed before the event was appended. */
  streamedSeq: number
  /** The text of each kind of chunk streamed for `streamedSeq` (sent, or held in `lastChunk`). */
  streamedText: Map<string, string>
  /**
   * The seq of an event whose chunks had begun streaming when it attached: it is sent none of
   * them, and the whole event (one chunk, as a replay has it) once it is appended.
   */
  joinedDuringSeq: number
  /**
   * The last chunk streamed, not sent yet: it goes out with its event, so that the turn's last
   * update can carry how the turn ended, as in a replay.
   */
  lastChunk: SessionUpdateNotification | undefined
  /**
   * An update of another process's open turn went out before its end was known (a live client
   * is not kept waiting for the next event): the turn's end then comes as an update of its own.
   */
  endUnmarked: boolean
}

/** `seat` as a question sees it, when it can be asked. */
export function answererOf(seat: Attached): Answerer | undefined {
  if (!seat.ask) return undefined
  return {
    owner: seat.owner,
    ask: seat.ask,
    notify: seat.notify,
    ...(seat.name !== undefined && { name: seat.name }),
    ...(seat.canAnswer !== undefined && { canAnswer: seat.canAnswer }),
    ...(seat.tell !== undefined && { tell: seat.tell }),
  }
}

/** The seats among `seats` that can answer `method` with `params`, as questions see them. */
export function answerersAmong(seats: readonly Attached[], method: string, params: unknown): Answerer[] {
  return seats.flatMap((seat) => {
    const answerer = answererOf(seat)
    return answerer && (answerer.canAnswer?.(method, params) ?? true) ? [answerer] : []
  })
}

/** The `clientInfo.name` of each seat that gave one. */
export function namesOf(seats: readonly Attached[]): string[] {
  return seats.flatMap((seat) => (seat.name !== undefined ? [seat.name] : []))
}
