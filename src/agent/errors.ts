/** Stable codes of the agent layer's errors; the protocol maps on them. */
export const AgentErrorCode = {
  TURN_IN_PROGRESS: 'TURN_IN_PROGRESS',
  UNKNOWN_PROVIDER: 'UNKNOWN_PROVIDER',
  INVALID_SCRIPT: 'INVALID_SCRIPT',
  /** A config option or value the agent does not offer. */
  INVALID_CONFIG: 'INVALID_CONFIG',
  /** A prompt the configured model cannot take (e.g. an image for a text-only model). */
  UNSUPPORTED_CONTENT: 'UNSUPPORTED_CONTENT',
} as const

/**
 * The JSON-RPC error code of a turn the model failed (ACP `session/prompt` answers it with this
 * code, and a failed subagent's `idle` state carries it).
 */
export const MODEL_FAILED_CODE = -32020

export type AgentErrorCode = (typeof AgentErrorCode)[keyof typeof AgentErrorCode]

/** Every failure the agent layer raises itself. `data` names what the caller needs to act. */
export class AgentError extends Error {
  override name = 'AgentError'
  constructor(
    readonly code: AgentErrorCode,
    message: string,
    readonly data: { readonly [key: string]: unknown } = {},
  ) {
    super(message)
  }
}

/** A prompt for a session whose turn is still running. The log was not touched. */
export class TurnInProgressError extends AgentError {
  override name = 'TurnInProgressError'
  declare readonly code: typeof AgentErrorCode.TURN_IN_PROGRESS
  constructor(readonly sessionId: string) {
    super(AgentErrorCode.TURN_IN_PROGRESS, `session ${sessionId} is already running a turn`, { sessionId })
  }
}
