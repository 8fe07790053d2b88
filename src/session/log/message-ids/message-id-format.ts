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
