import {
  isWholeMessage,
  type SessionEvent,
  type SessionUpdateNotification,
  WHOLE_MESSAGE_CHUNKS,
} from '../../session/index.js'
import type { Attached } from './attached.js'

/** The updates streamed before their event is appended (a model's text as it comes). */
const STREAMED: ReadonlySet<string> = new Set(['agent_message_chunk', 'agent_thought_chunk'])
/** What the event of streamed updates projects to (the whole message a replay shows). */
const STREAMED_WHOLE: ReadonlySet<string> = new Set(['agent_message', 'agent_thought'])

/** Whether `update` is one that streams before its event is appended. */
export function streamsAhead(update: SessionUpdateNotification): boolean {
  return STREAMED.has(update.update.sessionUpdate)
}

/**
 * A chunk `owner`'s turn (undefined: another process's) streams before its event `seq` is
 * appended: sent at once to the other seats (the one it holds back goes out first; it holds this
 * one), which then are not sent the event's chunks again when it is appended.
 */
export function streamChunk(
  seats: readonly Attached[],
  owner: object | undefined,
  update: SessionUpdateNotification,
  seq: number,
): void {
  for (const seat of seats) {
    if (seat.owner === owner || seat.joinedDuringSeq === seq) continue
    void seat.turnEnds.flush()
    if (seat.lastChunk) void seat.notify(seat.lastChunk)
    if (seat.streamedSeq !== seq) seat.streamedText = new Map()
    seat.streamedSeq = seq
    const kind = update.update.sessionUpdate
    seat.streamedText.set(kind, (seat.streamedText.get(kind) ?? '') + chunkText(update))
    seat.lastChunk = update
  }
}

/** What `seat` is sent for `event`: its projection, less the chunks it was streamed already. */
export function liveUpdates(
  seat: Attached,
  event: SessionEvent,
  projected: readonly SessionUpdateNotification[],
): readonly SessionUpdateNotification[] {
  const last = seat.lastChunk
  seat.lastChunk = undefined
  if (seat.streamedSeq !== event.seq) {
    // Its event never came (the turn failed before it): the chunk goes out on its own.
    if (last) void seat.notify(last)
    return projected
  }
  // What was not streamed of the message (another process's chunks read too late) follows.
  const rest = projected.flatMap((update) =>
    STREAMED_WHOLE.has(update.update.sessionUpdate) ? unstreamedPart(update, seat.streamedText) : [update],
  )
  return last ? [last, ...rest] : rest
}

function chunkText(notification: SessionUpdateNotification): string {
  const update = notification.update
  if (!('content' in update)) return ''
  const content: unknown = update.content
  if (!content || typeof content !== 'object' || Array.isArray(content)) return ''
  const { type, text } = content as { type?: unknown; text?: unknown }
  return type === 'text' && typeof text === 'string' ? text : ''
}

/**
 * The part of a whole message (its event's projection) its streamed chunks did not carry, as one
 * chunk; nothing when they carried it all (or something else than its start).
 */
function unstreamedPart(
  notification: SessionUpdateNotification,
  streamed: ReadonlyMap<string, string>,
): SessionUpdateNotification[] {
  const update = notification.update
  if (!isWholeMessage(update)) return []
  const chunk = WHOLE_MESSAGE_CHUNKS[update.sessionUpdate]
  const text = update.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
  const sent = streamed.get(chunk) ?? ''
  if (text.length <= sent.length || !text.startsWith(sent)) return []
  return [
    {
      ...notification,
      update: {
        sessionUpdate: chunk,
        messageId: update.messageId,
        content: { type: 'text', text: text.slice(sent.length) },
      },
    },
  ]
}

/**
 * Per session, the seq of the event whose chunks stream now (before it is appended), and who
 * waits for that event (see {@link StreamingEvents.passed}).
 */
export class StreamingEvents {
  private readonly streaming = new Map<string, number>()
  private readonly waiters = new Map<string, Array<() => void>>()

  /** The seq of the event whose chunks stream on `sessionId` now, if any. */
  seqOf(sessionId: string): number | undefined {
    return this.streaming.get(sessionId)
  }

  /** A chunk of the event `seq` streamed. */
  streams(sessionId: string, seq: number): void {
    this.streaming.set(sessionId, seq)
  }

  /** An event was appended: the streaming one, or one past it, ends the streaming (waiters wake). */
  appended(sessionId: string, seq: number): void {
    if ((this.streaming.get(sessionId) ?? Number.POSITIVE_INFINITY) > seq) return
    this.streaming.delete(sessionId)
    for (const wake of this.waiters.get(sessionId) ?? []) wake()
    this.waiters.delete(sessionId)
  }

  /** Resolves once no event's chunks stream on `sessionId` (at once when none do). */
  async passed(sessionId: string): Promise<void> {
    while (this.streaming.has(sessionId)) {
      await new Promise<void>((resolve) => {
        this.waiters.set(sessionId, [...(this.waiters.get(sessionId) ?? []), resolve])
      })
    }
  }
}
