import { createHash } from 'node:crypto'
import { SessionErrorCode, SessionForkError } from '../../errors.js'
import type { Session } from '../../session.js'
import { parseMessageId } from './message-id-format.js'

export { messageIdOf } from './message-id-format.js'

/**
 * The seq of the event `messageId` names in `session`: its form's seq, when the session's
 * generation there is the id's (an id of a message a rewind removed names nothing, even where a
 * later message took its seq). Undefined otherwise.
 */
export function seqOfMessageId(session: Session, messageId: string): number | undefined {
  const parsed = parseMessageId(messageId)
  if (parsed === undefined || session.generationAt(parsed.seq) !== parsed.generation) return undefined
  return parsed.seq
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
  const seq = seqOfMessageId(session, messageId)
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
    if (++seen === occurrence) return session.messageIdAt(event.seq)
  }
  return undefined
}
