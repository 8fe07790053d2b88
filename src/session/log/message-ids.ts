import { createHash } from 'node:crypto'
import { SessionErrorCode, SessionForkError } from '../errors.js'
import type { Session } from '../session.js'

/**
 * ACP `messageId`s: a message is named by the seq of the event that records it (a `user/message`
 * or an `assistant/message`; an assistant message's thought and text share it) and by the session's
 * rewind generation there (how many `rewind:marker` events precede it, as the last one numbers
 * them): `msg_<seq>` before any rewind (so a session of 0.3 loads with its ids unchanged), else
 * `msg_<seq>_r<generation>`. A rewind removes messages and writes the next generation's marker, so
 * a later message at a seq an undone one had gets another id: an id names one message for the
 * life of the session and its branches (a branch holds the old log with its markers), the same
 * live and in every replay; a fork child that inherits the event names it the same way.
 */
export function messageIdOf(seq: number, generation = 0): string {
  return generation === 0 ? `msg_${seq}` : `msg_${seq}_r${generation}`
}

/** The seq and generation a message id names, if it has the form {@link messageIdOf} makes. */
export function parseMessageId(messageId: string): { seq: number; generation: number } | undefined {
  const match = /^msg_([1-9]\d*)(?:_r([1-9]\d*))?$/.exec(messageId)
  if (!match) return undefined
  return { seq: Number(match[1]), generation: match[2] === undefined ? 0 : Number(match[2]) }
}

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
