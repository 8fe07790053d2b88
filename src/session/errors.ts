/** Codes of every error the session store raises. Stable strings: tests and the protocol map on them. */
export const SessionErrorCode = {
  SESSION_NOT_FOUND: 'SESSION_NOT_FOUND',
  SESSION_NOT_LIVE: 'SESSION_NOT_LIVE',
  SESSION_ALREADY_EXISTS: 'SESSION_ALREADY_EXISTS',
  INVALID_SESSION_ID: 'INVALID_SESSION_ID',
  INVALID_BOUNDARY: 'INVALID_BOUNDARY',
  INVALID_SUBAGENT_MARKER: 'INVALID_SUBAGENT_MARKER',
  OPEN_TURN: 'OPEN_TURN',
  INVALID_EVENT: 'INVALID_EVENT',
  INVARIANT_VIOLATION: 'INVARIANT_VIOLATION',
  INVALID_SEED: 'INVALID_SEED',
  SESSION_READ_ONLY: 'SESSION_READ_ONLY',
  SESSION_LOCKED: 'SESSION_LOCKED',
  /** The session's file was replaced, removed or shortened by another process: load it again. */
  SESSION_CHANGED: 'SESSION_CHANGED',
  PERSISTENCE_FAILED: 'PERSISTENCE_FAILED',
  CORRUPT_SESSION: 'CORRUPT_SESSION',
} as const

export type SessionErrorCode = (typeof SessionErrorCode)[keyof typeof SessionErrorCode]

export type SessionErrorData = { readonly [key: string]: unknown }

/** Every failure of the session store. `code` is stable; `data` names what the caller needs to act. */
export class SessionError extends Error {
  override name = 'SessionError'
  constructor(
    readonly code: SessionErrorCode,
    message: string,
    readonly data: SessionErrorData = {},
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

export type SessionForkErrorCode =
  | typeof SessionErrorCode.SESSION_NOT_FOUND
  | typeof SessionErrorCode.SESSION_NOT_LIVE
  | typeof SessionErrorCode.SESSION_ALREADY_EXISTS
  | typeof SessionErrorCode.INVALID_BOUNDARY
  | typeof SessionErrorCode.OPEN_TURN
  | typeof SessionErrorCode.INVALID_SESSION_ID
  | typeof SessionErrorCode.INVALID_SUBAGENT_MARKER

/** A fork that was refused. For `OPEN_TURN`, `data` holds `boundary` and `lastSafeBoundary`. */
export class SessionForkError extends SessionError {
  override name = 'SessionForkError'
  declare readonly code: SessionForkErrorCode
  constructor(code: SessionForkErrorCode, message: string, data: SessionErrorData = {}) {
    super(code, message, data)
  }
}

export function isSessionError(error: unknown): error is SessionError {
  return error instanceof SessionError
}
