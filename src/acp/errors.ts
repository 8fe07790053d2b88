import { ResponseError } from 'vscode-jsonrpc'
import { AgentError, AgentErrorCode, MODEL_FAILED_CODE } from '../agent/errors.js'
import { SessionError, SessionErrorCode } from '../session/errors.js'

/** JSON-RPC and ACP error codes, plus dsh-acp's own (implementation-defined, -32010..-32029). */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  RequestCancelled: -32800,
  ResourceNotFound: -32002,
  /** ACP `auth_required`: the client should show the `authMethods`. */
  AuthRequired: -32000,
  /**
   * Another process is writing this session right now (it holds the pen: a turn or another change
   * runs there); `data.pid` names it. Nothing was written; try again once it is done.
   */
  SessionLocked: -32010,
  /** A write failed; the session is read-only until it is loaded again. */
  SessionReadOnly: -32011,
  /** The session's file is corrupt; it was not loaded. */
  SessionCorrupt: -32012,
  /** A prompt is already running on this session. */
  TurnInProgress: -32013,
  /** Another process replaced or removed this session's file since it was opened here: load it again. */
  SessionChanged: -32015,
  /** The model failed; the turn ended with `error` and is recorded. */
  ModelFailed: MODEL_FAILED_CODE,
} as const

/** A protocol error with a numeric code, sent to the client verbatim. */
export class ProtocolError extends ResponseError<Record<string, unknown> | undefined> {
  static invalidParams(message: string, data?: Record<string, unknown>): ProtocolError {
    return new ProtocolError(ErrorCode.InvalidParams, message, data)
  }

  static sessionNotFound(sessionId: unknown, message?: string): ProtocolError {
    return new ProtocolError(
      ErrorCode.ResourceNotFound,
      message ?? `session ${String(sessionId)} not found`,
      {
        sessionId,
      },
    )
  }

  static methodNotFound(method: string): ProtocolError {
    return new ProtocolError(ErrorCode.MethodNotFound, `method not found: ${method}`, { method })
  }

  static authRequired(message: string): ProtocolError {
    return new ProtocolError(ErrorCode.AuthRequired, message)
  }

  static cancelled(): ProtocolError {
    return new ProtocolError(ErrorCode.RequestCancelled, 'request cancelled')
  }
}

const SESSION_ERROR_CODES: Partial<Record<SessionErrorCode, number>> = {
  [SessionErrorCode.SESSION_NOT_FOUND]: ErrorCode.ResourceNotFound,
  [SessionErrorCode.SESSION_NOT_LIVE]: ErrorCode.ResourceNotFound,
  [SessionErrorCode.INVALID_SESSION_ID]: ErrorCode.ResourceNotFound,
  [SessionErrorCode.INVALID_BOUNDARY]: ErrorCode.InvalidParams,
  [SessionErrorCode.OPEN_TURN]: ErrorCode.InvalidParams,
  [SessionErrorCode.INVALID_EVENT]: ErrorCode.InvalidParams,
  [SessionErrorCode.SESSION_LOCKED]: ErrorCode.SessionLocked,
  [SessionErrorCode.SESSION_READ_ONLY]: ErrorCode.SessionReadOnly,
  [SessionErrorCode.PERSISTENCE_FAILED]: ErrorCode.SessionReadOnly,
  [SessionErrorCode.CORRUPT_SESSION]: ErrorCode.SessionCorrupt,
  [SessionErrorCode.SESSION_CHANGED]: ErrorCode.SessionChanged,
}

/** Agent errors that say the request asked for something not offered: -32602. */
const AGENT_INVALID_PARAMS: ReadonlySet<string> = new Set([
  AgentErrorCode.INVALID_CONFIG,
  AgentErrorCode.UNSUPPORTED_CONTENT,
])

/**
 * The one place where errors become JSON-RPC errors. Protocol errors pass through; session errors
 * map by code with `data.code` and the error's data; anything else is an internal error whose
 * text stays in the log (reported through `log`), never on the wire.
 */
export function toResponseError(error: unknown, log: (message: string) => void): ResponseError<unknown> {
  if (error instanceof ResponseError) return error
  if (error instanceof SessionError) {
    const code = SESSION_ERROR_CODES[error.code]
    if (code !== undefined) return new ResponseError(code, error.message, { code: error.code, ...error.data })
  }
  if (error instanceof AgentError && error.code === AgentErrorCode.TURN_IN_PROGRESS) {
    return new ResponseError(
      ErrorCode.TurnInProgress,
      `${error.message}: wait for its response or send session/cancel`,
      { code: error.code, ...error.data },
    )
  }
  if (error instanceof AgentError && AGENT_INVALID_PARAMS.has(error.code)) {
    return new ResponseError(ErrorCode.InvalidParams, error.message, { code: error.code, ...error.data })
  }
  log(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  return new ResponseError(ErrorCode.InternalError, 'internal error (details are in the agent log on stderr)')
}
