import type { CoreEvent, SessionEvent } from '../log/events.js'
import type { TurnSpan } from '../log/log-state.js'
import { messageFingerprint, seqOfMessageId } from '../log/message-ids/message-ids.js'
import type { Session } from '../session.js'

/**
 * Where a session can be rewound to: before each of its prompts (a `user/message`). Rewinding to
 * before prompt M keeps the prefix that ends just before M's `turn/start` (the fork rule for a
 * user message: every turn before it is closed there).
 */
export interface RewindPoint {
  /** The id of the prompt's `user/message` (see `messageIdOf`), as its chunks carry it. */
  readonly messageId: string
  /** The seq of that `user/message`. */
  readonly seq: number
  /** The turn the prompt opened. */
  readonly turn: number
  /** The closed boundary a rewind to before this prompt keeps: the seq before its `turn/start`. */
  readonly boundary: number
  /** The last assistant message with text before the prompt (the last one kept), if any. */
  readonly resumeAt: CoreEvent<'assistant/message'> | undefined
  /** The prompt's text blocks, concatenated. */
  readonly text: string
  /** `sha256:<hex>` of {@link text}. */
  readonly fingerprint: string
  /** True when the prompt holds only text blocks (and some text). */
  readonly textOnly: boolean
  /** True when the turn is a slash command's. */
  readonly command: boolean
  /**
   * True for a message the user steered into the running turn (`user/message {steered: true}`):
   * it has its turn's boundary, so a rewind to before it is a rewind to before its turn's prompt.
   */
  readonly steered: boolean
}

/** A prompt's text blocks, concatenated, without normalization (the AIR fingerprint's input). */
export function promptText(event: CoreEvent<'user/message'>): string {
  return event.data.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
}

/** Every prompt of the session, oldest first. */
export function rewindPoints(session: Session): RewindPoint[] {
  const points: RewindPoint[] = []
  let lastAnswer: CoreEvent<'assistant/message'> | undefined
  const spans = new Map<number, TurnSpan>(session.turnSpans().map((span) => [span.turn, span]))
  let commandTurn = false
  for (const event of session.events()) {
    if (event.type === 'turn/start') commandTurn = event.data.command !== undefined
    if (event.type === 'assistant/message' && event.data.content !== '') lastAnswer = event
    if (event.type !== 'user/message') continue
    const span = spans.get(event.data.turn)
    if (!span) continue
    const text = promptText(event)
    points.push({
      messageId: session.messageIdAt(event.seq),
      seq: event.seq,
      turn: event.data.turn,
      boundary: span.start - 1,
      resumeAt: lastAnswer,
      text,
      fingerprint: messageFingerprint(text),
      textOnly: text !== '' && event.data.content.every((block) => block.type === 'text'),
      command: commandTurn,
      steered: event.data.steered === true,
    })
  }
  return points
}

/**
 * The prompts a user can undo, oldest first: every prompt that opened a turn but a slash command's
 * (a `/compact` or a `/rewind` turn is not one). A steered message is not one either: no boundary
 * lies between it and its turn's prompt, so undoing it undoes that prompt, which is listed (a
 * rewind by a steered message's id still works, as the rewind to its turn). `_session/rewind_points`
 * lists these and `/rewind N` counts them, so its N-th last is the listing's N-th from the end, and
 * what each point names is exactly what a rewind to it removes. `before`: only prompts before that seq.
 */
export function undoablePrompts(session: Session, before = Number.POSITIVE_INFINITY): RewindPoint[] {
  return rewindPoints(session).filter((point) => !point.command && !point.steered && point.seq < before)
}

/** The rewind point of the prompt a message id names (a `:segment:<n>` suffix is dropped), if any. */
export function rewindPointOf(points: readonly RewindPoint[], messageId: string): RewindPoint | undefined {
  for (const candidate of [messageId, messageId.replace(/:segment:\d+$/, '')]) {
    const point = points.find((p) => p.messageId === candidate)
    if (point) return point
  }
  return undefined
}

/** The assistant message a message id names (a `:segment:<n>` suffix is dropped), if any. */
export function assistantMessageOf(
  session: Session,
  messageId: string,
): CoreEvent<'assistant/message'> | undefined {
  for (const candidate of [messageId, messageId.replace(/:segment:\d+$/, '')]) {
    const seq = seqOfMessageId(session, candidate)
    const event: SessionEvent | undefined = seq === undefined ? undefined : session.at(seq)
    if (event?.type === 'assistant/message') return event
  }
  return undefined
}
