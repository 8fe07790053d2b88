import { busyRefusal, rewindSession, turnRunning } from '../../agent/rewind/rewind-session.js'
import {
  assistantMessageOf,
  type CoreEvent,
  messageFingerprint,
  messageIdByFingerprint,
  type RewindPoint,
  rewindPointOf,
  rewindPoints,
  type Session,
} from '../../session/index.js'
import type { CallContext } from '../call-context.js'
import { ProtocolError } from '../errors.js'
import { openSession } from '../requests/session-access.js'
import { announceRewind } from './announce.js'
import type { AirRewindParams } from './wire-schema.js'

/** A message as AIR names it: `_session/rewind`'s `beforeMessage` and `resumeAtMessage`. */
type HistoryPoint = AirRewindParams['beforeMessage']

export type AirRewindResult = { rewound: true; sessionId: string } | { rewound: false; reason: string }

const invalid = (message: string, data: Record<string, unknown>) =>
  ProtocolError.invalidParams(`_session/rewind: ${message}`, data)

/**
 * The prompt `beforeMessage` names: by id (a `:segment:<n>` suffix dropped; with a fingerprint,
 * it must be that prompt's), else, when the id is unknown, the one text-only prompt with the
 * fingerprint (repeated, empty or multimodal matches are refused: an occurrence cannot make an
 * ambiguous match safe). Anything else is -32602.
 */
function beforePoint(session: Session, points: readonly RewindPoint[], point: HistoryPoint): RewindPoint {
  const data = { sessionId: session.id, messageId: point.messageId }
  const byId = rewindPointOf(points, point.messageId)
  if (byId) {
    if (point.messageFingerprint !== undefined && point.messageFingerprint !== byId.fingerprint) {
      throw invalid(`beforeMessage ${point.messageId}: messageFingerprint is not that prompt's`, data)
    }
    return byId
  }
  if (assistantMessageOf(session, point.messageId)) {
    throw invalid(`beforeMessage ${point.messageId} is an agent message, not a user message`, data)
  }
  if (point.messageFingerprint === undefined) {
    throw invalid(`session ${session.id} holds no user message ${JSON.stringify(point.messageId)}`, data)
  }
  const matches = points.filter((p) => p.fingerprint === point.messageFingerprint)
  const only = matches.length === 1 ? matches[0] : undefined
  if (!only?.textOnly) {
    throw invalid(
      matches.length === 0
        ? `no user message ${JSON.stringify(point.messageId)}, and none with its fingerprint`
        : `no user message ${JSON.stringify(point.messageId)}, and its fingerprint does not name exactly one text prompt`,
      { ...data, matches: matches.length },
    )
  }
  return only
}

/** The assistant message `resumeAtMessage` names: by id (and fingerprint), else the one with the fingerprint. */
function resumeMessage(session: Session, point: HistoryPoint): CoreEvent<'assistant/message'> | undefined {
  const byId = assistantMessageOf(session, point.messageId)
  if (byId) {
    if (
      point.messageFingerprint !== undefined &&
      point.messageFingerprint !== messageFingerprint(byId.data.content)
    ) {
      throw invalid(`resumeAtMessage ${point.messageId}: messageFingerprint is not that message's`, {
        sessionId: session.id,
        messageId: point.messageId,
      })
    }
    return byId
  }
  if (point.messageFingerprint === undefined) return undefined
  const first = messageIdByFingerprint(session, point.messageFingerprint, 1)
  if (first === undefined || messageIdByFingerprint(session, point.messageFingerprint, 2) !== undefined) {
    return undefined
  }
  return assistantMessageOf(session, first)
}

/**
 * The guard: `resumeAtMessage` must name an agent message of the turn the rewind keeps last (the
 * authored turn before the prompt), present exactly when there is one.
 */
function checkResumeAt(session: Session, target: RewindPoint, point: HistoryPoint | undefined): void {
  const data = { sessionId: session.id, beforeMessage: target.messageId }
  if (target.resumeAt === undefined) {
    if (point !== undefined) {
      throw invalid(
        `resumeAtMessage: nothing precedes ${target.messageId}, the first prompt; leave it out`,
        data,
      )
    }
    return
  }
  if (point === undefined) {
    throw invalid(`resumeAtMessage is required: ${target.messageId} is not the first prompt`, data)
  }
  const message = resumeMessage(session, point)
  if (message === undefined) {
    throw invalid(`resumeAtMessage ${JSON.stringify(point.messageId)} names no agent message`, {
      ...data,
      messageId: point.messageId,
    })
  }
  if (message.data.turn !== target.resumeAt.data.turn) {
    throw invalid(
      `resumeAtMessage ${point.messageId} is in turn ${message.data.turn}, not in turn ${target.resumeAt.data.turn}, the last one kept before ${target.messageId}`,
      { ...data, messageId: point.messageId },
    )
  }
}

/**
 * The JetBrains AIR `_session/rewind`: the session goes back to before the user message
 * `beforeMessage`, in place (same id), durably before the answer; what it drops is kept in an
 * archived branch session. A running turn is refused (`rewound: false`) unless
 * `interruptIfRunning`, before the guards are looked at; guards that do not match are -32602.
 */
export async function airRewind(params: AirRewindParams, call: CallContext): Promise<AirRewindResult> {
  const session = await openSession(call, params.sessionId)
  if (turnRunning(call.agent, session) && params.interruptIfRunning !== true) return busyRefusal(session)
  const target = beforePoint(session, rewindPoints(session), params.beforeMessage)
  checkResumeAt(session, target, params.resumeAtMessage)
  const result = await rewindSession(call.agent, call.sessions, session, {
    boundary: target.boundary,
    ...(params.interruptIfRunning !== undefined && { interruptIfRunning: params.interruptIfRunning }),
  })
  if ('rewound' in result) return result
  announceRewind(call, result)
  return { rewound: true, sessionId: result.session.id }
}
