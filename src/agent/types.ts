import type * as acp from '@agentclientprotocol/sdk'
import type {
  ContentBlock,
  JsonValue,
  ModelMessage,
  SessionUpdate,
  TokenUsage,
  ToolCallContent,
  ToolCallLocation,
  TurnEndReason,
  TurnUsage,
} from '../session/index.js'
import type { LivePermissions, PermissionAnswer } from './config/permission-types.js'
import type { Notice } from './notices/notice.js'
import type { ModelPricing } from './providers/model-table.js'

export type { ToolKind } from '@agentclientprotocol/sdk'

export type { ContentBlock, ToolCallContent, ToolCallLocation } from '../session/index.js'

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
  /** The model to ask: the session's `model` option (one of the provider's `models`). Absent: its first. */
  readonly model?: string
  /** The session's `thought_level` option, when the provider declares `thoughtLevels`. */
  readonly thoughtLevel?: string
  /**
   * The system prompt (`systemPrompt` of the session's recorded inputs, mode and these tools), for
   * a provider that {@link ModelProvider.takesSystemPrompt}; absent for the others.
   */
  readonly system?: string
  /**
   * A request made for someone else (an MCP server's `sampling/createMessage`): its own system
   * prompt in place of the agent's, and its limits. Absent for the agent's own steps.
   */
  readonly sampling?: SamplingLimits
  /**
   * Tells the user something about this request while it runs that is no part of the answer (a
   * retry after a 429 or 5xx). Absent: nobody is told (providers log what they need to anyway).
   */
  readonly notify?: (notice: Notice) => void
  /**
   * `summary`: a compaction asks the model to summarize `messages` (the last is the summarizing
   * instruction); the answer's text is the summary, tool calls are ignored. Absent: a turn's step.
   */
  readonly purpose?: 'summary'
}

/** What an MCP server's sampling request sets for the one completion it asks for. */
export interface SamplingLimits {
  /** Replaces the agent's system prompt (absent: no system prompt at all). */
  readonly systemPrompt?: string
  readonly maxTokens: number
  readonly temperature?: number
  readonly stopSequences?: readonly string[]
}

/** A model, or a reasoning effort, a provider offers. */
export interface ModelChoice {
  readonly id: string
  readonly name?: string
  readonly description?: string
}

/** Pieces a provider streams for one step, in order. */
export type ModelChunk =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'thought'; readonly text: string }
  | {
      readonly type: 'tool_call'
      readonly callId: string
      readonly name: string
      readonly input: JsonValue
      /**
       * A result the provider answers itself (the `script` provider's executor). When present the
       * turn loop records it instead of running a tool. Real providers leave it out.
       */
      readonly result?: ToolResult
    }
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
  /**
   * Which prompt content the provider really passes on to its model (ACP `promptCapabilities`).
   * Omitted: text and resource links only (`image`, `audio`, `embeddedContext` all false).
   */
  readonly promptCapabilities?: PromptCapabilities
  /** The models it can ask for (the `model` option); the first is the default. Omitted: one, its name. */
  readonly models?: readonly ModelChoice[]
  /** The reasoning efforts it can send (the `thought_level` option); the first is the default. */
  readonly thoughtLevels?: readonly ModelChoice[]
  /**
   * It sends a system prompt (`ModelRequest.system`) to its model: new sessions then record the
   * prompt's inputs (`instructions:set`), and each request gets the prompt. Default false.
   */
  readonly takesSystemPrompt?: boolean
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelChunk>
  /**
   * The context window of `model` in tokens (one of {@link models}), when known: what `size` in
   * `usage_update` reports. A usage chunk's own `contextWindow` comes first. Omitted: unknown.
   */
  readonly contextWindow?: (model: string) => number | undefined
  /** What `model` costs per million tokens, when a price is configured. Omitted: no cost is reported. */
  readonly pricing?: (model: string) => ModelPricing | undefined
}

/** ACP `promptCapabilities`, each stated: content block types beyond the baseline `text` and `resource_link`. */
export type PromptCapabilities = Readonly<
  Required<Pick<acp.PromptCapabilities, 'image' | 'audio' | 'embeddedContext'>>
>

/** What a tool call produced. `isError` results are shown to the model as failures. */
export interface ToolResult {
  /** What the model reads (cut by the turn loop when it is very long, with a note saying so). */
  readonly output: JsonValue
  readonly isError?: boolean
  /** What the editor shows for the finished call. Omitted: the output as text. */
  readonly content?: readonly ToolCallContent[]
}

/** What the editor can do for tools, bridged by the protocol layer (absent when the client can't). */
export interface ClientBridge {
  readonly readTextFile?: (path: string, signal: AbortSignal) => Promise<string>
  readonly writeTextFile?: (path: string, content: string, signal: AbortSignal) => Promise<void>
  /**
   * Asks the user, offering `allow_once`, `allow_always`, `reject_once` and `reject_always`; resolves
   * with the kind of the option chosen (`cancelled` when the client cancelled the question).
   * Absent: tools that need permission are refused.
   */
  readonly requestPermission?: (request: PermissionRequest, signal: AbortSignal) => Promise<PermissionAnswer>
  /** The editor's terminals (ACP `terminal/*`), when the client advertised `terminal`. */
  readonly terminal?: TerminalBridge
  /** ACP `elicitation/create`, when the client advertised `elicitation.form` or `elicitation.url`. */
  readonly elicitation?: ElicitationBridge
  /**
   * Where the turn of a subagent this session spawned goes: its updates (canonical, as any turn's)
   * and its editor services. The protocol layer's view of the client decides how the child is
   * shown. Absent: the child runs unseen, with this bridge's services.
   */
  readonly subagent?: (link: SubagentLink) => SubagentChannel
}

/** A question for the user (ACP `elicitation/create` without its session scope). */
export type ElicitationRequest = {
  /** What the user reads: what is asked, and by whom. */
  readonly message: string
  /** The tool call the question belongs to (the bridge may show it on another, as permissions are). */
  readonly toolCallId?: string
} & (
  | { readonly mode: 'form'; readonly requestedSchema: acp.ElicitationSchema }
  | { readonly mode: 'url'; readonly url: string; readonly elicitationId: string }
)

/**
 * The user's answer: `accept` (with the form's content), `decline` (said no) or `cancel`
 * (dismissed it). A client's unknown action counts as `cancel`.
 */
export type ElicitationAnswer =
  | { readonly action: 'accept'; readonly content?: { readonly [key: string]: acp.ElicitationContentValue } }
  | { readonly action: 'decline' }
  | { readonly action: 'cancel' }

/** ACP elicitation for one session. `create` rejects when `signal` aborts (the client is told to drop it). */
export interface ElicitationBridge {
  /** The modes the client advertised. */
  readonly form: boolean
  readonly url: boolean
  create(request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer>
  /** Tells the client a URL elicitation it was shown has been completed (ACP `elicitation/complete`). */
  complete(elicitationId: string): void
}

/** The tool call a permission request is about, as the editor shows it. */
export interface PermissionRequest {
  readonly sessionId: string
  readonly toolCallId: string
  readonly title: string
  readonly kind: acp.ToolKind
  readonly rawInput: JsonValue
  readonly locations?: readonly ToolCallLocation[]
  /** What the call would change (an edit's diff), for the user to see what they approve. */
  readonly content?: readonly ToolCallContent[]
}

/** ACP `terminal/create` params (without `sessionId`). */
export interface TerminalCommand {
  readonly command: string
  readonly args?: readonly string[]
  readonly cwd?: string
  readonly outputByteLimit?: number
}

/** ACP `terminal/*` for one session. Every call rejects when `signal` aborts. */
export interface TerminalBridge {
  create(command: TerminalCommand, signal: AbortSignal): Promise<string>
  output(
    terminalId: string,
    signal: AbortSignal,
  ): Promise<{ output: string; truncated: boolean; exitStatus?: acp.TerminalExitStatus | null }>
  waitForExit(terminalId: string, signal: AbortSignal): Promise<acp.TerminalExitStatus>
  kill(terminalId: string): Promise<void>
  release(terminalId: string): Promise<void>
}

/** A prompt turn's request from the protocol layer. */
export interface TurnRequest {
  readonly prompt: readonly ContentBlock[]
  readonly signal: AbortSignal
  /** Streams one `session/update` to the client; `seq` is the event it belongs to. */
  readonly sendUpdate: (update: SessionUpdate, seq: number) => void
  readonly client: ClientBridge
  /** Prompts naming a slash command (`/fork`, `/title`, `/help`) run it instead of the model. */
  readonly commands?: boolean
  /** Set for a subagent's turn: how it is bounded by the parent that delegated it. */
  readonly subagent?: SubagentTurn
  /** Told once the prompt is in the log as a user message, with that message's id. */
  readonly onUserMessage?: (messageId: string, seq: number) => void
}

/** What bounds a subagent's turn (a delegation of its parent's). */
export interface SubagentTurn {
  /** Model requests before the turn ends `max-turn-requests`. */
  readonly maxSteps: number
  /**
   * The tools the model may run in this turn; a call to any other is answered with an error. The
   * model is still told about every tool, so the request keeps the parent's exact prefix.
   */
  readonly allowedTools: ReadonlySet<string>
  /**
   * The session whose tools the turn offers: the parent, so the child is told about the same tools
   * (its request keeps the parent's exact prefix) and runs the parent's MCP servers' tools through
   * the parent's connections, which live while the parent's turn waits for it.
   */
  readonly toolScope: string
  /**
   * Permissions the turn may never exceed, read at every decision: the parent's, as they are now
   * (its mode and "always" answers).
   */
  readonly ceiling: LivePermissions
}

/** A subagent a delegation spawned: the child session and the parent's tool call it answers. */
export interface SubagentLink {
  readonly sessionId: string
  readonly parentSessionId: string
  /** The parent's `delegate` tool call. */
  readonly callId: string
  /** The seq of the parent's `subagent:spawned` event: what the parent's updates about it come from. */
  readonly seq: number
  readonly title: string
  readonly task: string
}

/** Where a subagent's turn goes (the protocol layer decides how it is shown). */
export interface SubagentChannel {
  /** The child's own canonical `session/update`s, each with the seq of the child's event. */
  readonly sendUpdate: (update: SessionUpdate, seq: number) => void
  /** The editor's services for the child's tools. */
  readonly client: ClientBridge
}

/**
 * How a turn ended, as `session/prompt` answers it. A turn that failed (`turn/end {reason: 'error'}`)
 * has `error` set and `stopReason: 'end_turn'`: the protocol answers such a prompt with a JSON-RPC
 * error carrying `error` (and `seq`), not with the stop reason.
 */
export interface TurnOutcome {
  readonly stopReason: acp.StopReason
  /** The seq of the turn's `turn/end`. */
  readonly seq: number
  /** The `reason` the log's `turn/end` records (`completed`, `cancelled`, `error`, ...). */
  readonly endReason: TurnEndReason
  /** Set when the turn ended with `error`: what failed, safe to show the user. */
  readonly error?: string
  /** What the turn's steps reported, summed (absent when none reported usage). */
  readonly usage?: TurnUsage
}
