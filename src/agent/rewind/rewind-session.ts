import {
  type RewindResult,
  type Session,
  SessionErrorCode,
  SessionForkError,
  type SessionStore,
} from '../../session/index.js'

/** A rewind that was not done, and why (nothing changed). */
export interface RewindRefusal {
  readonly rewound: false
  readonly reason: string
}

/** What a rewind needs of the agent: whether a turn runs, and cancelling it. */
export interface TurnControl {
  isRunning(sessionId: string): boolean
  cancel(sessionId: string): Promise<void>
}

export interface RewindRequest {
  /** The closed boundary to keep (see `ctx.sessions.rewind`). */
  readonly boundary: number
  /** Cancel a running turn first (recorded as cancelled, and then rewound away); else refuse. */
  readonly interruptIfRunning?: boolean
}

/** The refusal of a rewind while a turn runs and the request did not ask to interrupt it. */
export function busyRefusal(session: Session): RewindRefusal {
  return {
    rewound: false,
    reason: `a turn is running on session ${session.id}: cancel it first (or ask to interrupt it)`,
  }
}

/** True while a turn runs on the session (or one is open in its log). */
export function turnRunning(turns: TurnControl, session: Session): boolean {
  return turns.isRunning(session.id) || session.openTurn !== undefined
}

/**
 * Rewinds `session` to `request.boundary` in place, keeping the removed history as an archived
 * branch (`ctx.sessions.rewind`), and resolves once both are durable. A running turn is refused
 * unless `interruptIfRunning`: then it is cancelled first and its `turn/end` (cancelled) written.
 * A boundary the store refuses (inside a turn, inside an inherited fork seed) is a refusal too;
 * other failures (the disk) reject.
 */
export async function rewindSession(
  turns: TurnControl,
  sessions: SessionStore,
  session: Session,
  request: RewindRequest,
): Promise<RewindResult | RewindRefusal> {
  if (turnRunning(turns, session)) {
    if (request.interruptIfRunning !== true) return busyRefusal(session)
    await turns.cancel(session.id)
    if (turnRunning(turns, session)) return busyRefusal(session)
  }
  try {
    return await sessions.rewind(session, request.boundary)
  } catch (error) {
    if (
      error instanceof SessionForkError &&
      (error.code === SessionErrorCode.INVALID_BOUNDARY || error.code === SessionErrorCode.OPEN_TURN)
    ) {
      return { rewound: false, reason: error.message }
    }
    throw error
  }
}
