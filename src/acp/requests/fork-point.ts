import { isObject } from '../../lib/is.js'
import {
  messageForkBoundary,
  messageIdByFingerprint,
  type Session,
  SessionErrorCode,
  SessionForkError,
} from '../../session/index.js'

type Meta = { readonly [key: string]: unknown } | null | undefined

/**
 * The JetBrains AIR fork point (`_meta.jetbrains.air.fork`, version 1), as claude-agent-acp and
 * codex-acp read it: `messageId` (an id this agent sent as a chunk's `messageId`; a
 * `:segment:<n>` suffix that older AIR builds add is dropped), else the `messageOccurrence`-th
 * assistant message whose text has `messageFingerprint` (`sha256:<hex>`). Other versions, or no
 * message id, mean no fork point.
 */
function airForkMessage(session: Session, meta: Meta): string | undefined {
  const jetbrains = meta?.jetbrains
  const air = isObject(jetbrains) ? jetbrains.air : undefined
  const fork = isObject(air) ? air.fork : undefined
  if (!isObject(fork) || fork.version !== 1) return undefined
  const id = typeof fork.messageId === 'string' ? fork.messageId.trim() : ''
  if (id === '') return undefined
  const candidates = [id, id.replace(/:segment:\d+$/, '')]
  for (const candidate of candidates) {
    try {
      messageForkBoundary(session, candidate)
      return candidate
    } catch (error) {
      if (!(error instanceof SessionForkError) || error.code !== SessionErrorCode.INVALID_BOUNDARY)
        return candidate
    }
  }
  const { messageFingerprint: fingerprint, messageOccurrence: occurrence } = fork
  if (typeof fingerprint === 'string' && Number.isSafeInteger(occurrence) && (occurrence as number) > 0) {
    const found = messageIdByFingerprint(session, fingerprint.trim(), occurrence as number)
    if (found !== undefined) return found
  }
  return id
}

/**
 * Where `session/fork` forks `source`, from its params' `_meta`: `dsh.boundary` (a seq),
 * `dsh.messageId` (a message id: an agent message forks through the end of its turn, a user
 * message just before its turn), or the JetBrains AIR fork point mapped onto the same rule.
 * Undefined: the source's last event. Throws `INVALID_BOUNDARY` for an unknown message or more
 * than one fork point, `OPEN_TURN` for a message whose turn has not ended.
 */
export function forkBoundary(source: Session, meta: Meta): number | undefined {
  const dsh = isObject(meta?.dsh) ? meta.dsh : undefined
  const air = airForkMessage(source, meta)
  const points = [dsh?.boundary, dsh?.messageId, air].filter((p) => p !== undefined)
  if (points.length > 1) {
    throw new SessionForkError(
      SessionErrorCode.INVALID_BOUNDARY,
      'give one fork point: _meta.dsh.boundary, _meta.dsh.messageId or _meta.jetbrains.air.fork',
      { sessionId: source.id },
    )
  }
  if (dsh?.messageId !== undefined) {
    if (typeof dsh.messageId !== 'string') {
      throw new SessionForkError(SessionErrorCode.INVALID_BOUNDARY, '_meta.dsh.messageId must be a string', {
        sessionId: source.id,
        messageId: dsh.messageId,
      })
    }
    return messageForkBoundary(source, dsh.messageId)
  }
  if (air !== undefined) return messageForkBoundary(source, air)
  return dsh?.boundary as number | undefined
}
