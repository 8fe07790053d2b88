import { createHash } from 'node:crypto'
import { SessionErrorCode, SessionForkError } from '../errors.js'
import type { Session } from '../session.js'

/**
 * ACP `messageId`s: a message is named by the seq of the event that records it (`msg_<seq>` of a
 * `user/message` or an `assistant/message`; an assistant message's thought and text share it), so
 * the same id is sent live and in every replay, and a fork child that inherits the event names it
 * the same way. Unique within a session.
 */
export function messageIdOf(seq: number): string {
  return `msg_${seq}`
}

/** The seq a message id names, if it has the form {@link messageIdOf} makes. */
export function seqOfMessageId(messageId: string): number | undefined {
  const match = /^msg_([1-9]\d*)$/.exec(messageId)
  return match ? Number(match[1]) : undefined
}

function unknownMessage(session: Session, messageId: string): SessionForkError {
  return new SessionForkError(
    SessionErrorCode.INVALID_BOUNDARY,
    `session ${session.id} holds no message ${JSON.stringify(messageId)}`,
    { sessionId: session.id, messageId },
  )
}

/**
 * The fork boundary a message id stands for: an assistant message forks through the end of the
 * turn that holds it (the child has that whole answer); a user message forks just before its
 * turn (so the message can be edited and sent again). Throws `INVALID_BOUNDARY` (with
 * `data.messageId`) when the session holds no such message, `OPEN_TURN` when the assistant
 * message's turn has not ended.
 */
export function messageForkBoundary(session: Session, messageId: string): number {
  const seq = seqOfMessageId(messageId)
  const event = seq === undefined ? undefined : session.at(seq)
  if (event?.type !== 'user/message' && event?.type !== 'assistant/message') {
    throw unknownMessage(session, messageId)
  }
  const turn = session.turnSpans().find((span) => span.turn === event.data.turn)
  if (!turn) throw unknownMessage(session, messageId)
  if (event.type === 'user/message') return turn.start - 1
  if (turn.end === undefined) {
    throw new SessionForkError(
      SessionErrorCode.OPEN_TURN,
      `message ${messageId} is in turn ${turn.turn} of session ${session.id}, which has not ended`,
      { sessionId: session.id, messageId, openTurn: turn.turn, lastSafeBoundary: turn.start - 1 },
    )
  }
  return turn.end
}

/** `sha256:<hex>` of an assistant message's text: the JetBrains AIR fork point fingerprint. */
export function messageFingerprint(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`
}

/**
 * The id of the `occurrence`-th (1-based) assistant message whose text has `fingerprint`, if any:
 * how a JetBrains AIR fork point names a message when its id is not known.
 */
export function messageIdByFingerprint(
  session: Session,
  fingerprint: string,
  occurrence: number,
): string | undefined {
  let seen = 0
  for (const event of session.events()) {
    if (event.type !== 'assistant/message' || event.data.content === '') continue
    if (messageFingerprint(event.data.content) !== fingerprint) continue
    if (++seen === occurrence) return messageIdOf(event.seq)
  }
  return undefined
}
