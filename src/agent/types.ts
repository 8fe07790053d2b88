import type { ContentBlock, JsonValue, ModelMessage, SessionUpdate, TokenUsage } from '../session/index.js'

/** A tool as the model sees it: name, description and a JSON Schema for its input. */
export interface ToolSpec {
  readonly name: string
  readonly description: string
  readonly inputSchema: JsonValue
}

/** What a provider is asked for one step of a turn. */
export interface ModelRequest {
  readonly sessionId: string
  readonly cwd: string
  /** The whole history, from the store's projection of the log (a fork child: its prefix + own turns). */
  readonly messages: readonly ModelMessage[]
  readonly tools: readonly ToolSpec[]
}

/** Pieces a provider streams for one step, in order. */
export type ModelChunk =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'thought'; readonly text: string }
  | { readonly type: 'tool_call'; readonly callId: string; readonly name: string; readonly input: JsonValue }
  | { readonly type: 'usage'; readonly usage: TokenUsage; readonly contextWindow?: number }
  /** How the step ended. Omitted: `end_turn` unless tool calls were streamed. */
  | { readonly type: 'stop'; readonly reason: ModelStopReason }

export type ModelStopReason = 'end_turn' | 'tool_calls' | 'max_tokens' | 'refusal'

/**
 * A model behind the prompt. `stream` yields the chunks of one step and must stop promptly (throwing
 * an AbortError or returning) when `signal` aborts. Errors it throws end the turn with `error`.
 */
export interface ModelProvider {
  readonly name: string
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelChunk>
}

/** What the editor can do for tools, bridged by the protocol layer (absent when the client can't). */
export interface ClientBridge {
  readonly readTextFile?: (path: string, signal: AbortSignal) => Promise<string>
  readonly writeTextFile?: (path: string, content: string, signal: AbortSignal) => Promise<void>
  /** Asks the user; resolves true when allowed. Absent: tools that need permission are refused. */
  readonly requestPermission?: (request: PermissionRequest, signal: AbortSignal) => Promise<boolean>
}

export interface PermissionRequest {
  readonly sessionId: string
  readonly toolCallId: string
  readonly title: string
  readonly kind: string
  readonly rawInput: JsonValue
}

/** A prompt turn's request from the protocol layer. */
export interface TurnRequest {
  readonly prompt: readonly ContentBlock[]
  readonly signal: AbortSignal
  /** Streams one `session/update` to the client; `seq` is the event it belongs to. */
  readonly sendUpdate: (update: SessionUpdate, seq: number) => void
  readonly client: ClientBridge
}

/** How a turn ended, as `session/prompt` answers it. */
export interface TurnOutcome {
  readonly stopReason: 'end_turn' | 'max_tokens' | 'max_turn_requests' | 'refusal' | 'cancelled'
  /** The seq of the turn's `turn/end`. */
  readonly seq: number
  /** Set when the turn ended with `error`: what failed, safe to show the user. */
  readonly error?: string
}
