import type { JsonValue } from '../../../session/index.js'
import type { LivePermissions } from '../../config/permissions.js'
import type { ClientBridge, SamplingLimits, ToolKind } from '../../types.js'
import type { SamplingMessages } from './mcp-sampling.js'
import type { SamplingBounds } from './sampling-bounds.js'

/** The server's tool calls in flight (`AskingCalls`), as a question or a completion reads them. */
export interface CurrentCall {
  /** The one call in flight, or why there is none to name. */
  current(): AskingCall | string
}

/** The elicitation modes a session's client shows: what its MCP servers are told they may ask in. */
export interface ElicitationModes {
  readonly form: boolean
  readonly url: boolean
}

/** What one server may ask of us, and where its questions go. */
export interface ServerAsks {
  /** The server's name, as the user reads it. */
  readonly server: string
  /** Its tool calls in flight: a question is about the one running. */
  readonly calls: CurrentCall
  /** The elicitation modes the client shows (absent: none). */
  readonly modes?: ElicitationModes | undefined
  /** How its sampling requests are answered (absent: it is not offered sampling). */
  readonly sampling?: ServerSampling | undefined
}

/** How one server's sampling requests are answered: by `sampler`, within `bounds`. */
export interface ServerSampling {
  readonly sampler: McpSampler
  readonly bounds: SamplingBounds
}

/** What answering a server's sampling request needs from the agent. */
export interface McpSampler {
  /** The session's live permissions (its running turn's): read-only refuses, standing answers decide. */
  permissions(sessionId: string): LivePermissions
  /** Records an "always" answer for `scope` in the session's log (a `permission:always` event). */
  recordAlways(sessionId: string, tool: string, scope: string, allow: boolean): void
  /** One completion by the session's model, with the server's messages and limits. */
  complete(
    sessionId: string,
    messages: SamplingMessages,
    limits: SamplingLimits,
    signal: AbortSignal,
  ): Promise<{ readonly text: string; readonly model: string; readonly stopReason: 'endTurn' | 'maxTokens' }>
}

/** One of the server's tool calls while it runs: whom a request of the server during it concerns. */
export interface AskingCall {
  readonly sessionId: string
  readonly callId: string
  /** The turn of the session the call belongs to (sampling is bounded per turn). */
  readonly turn: number
  /** The registered tool name and the call's title and input, as the editor shows the call. */
  readonly tool: string
  readonly title: string
  readonly kind: ToolKind
  readonly input: JsonValue
  readonly client: ClientBridge
  readonly signal: AbortSignal
}
