import type { CommandOutputUpdate, JsonValue, SessionUpdate } from '../../session/index.js'
import type {
  ClientBridge,
  ToolCallContent,
  ToolCallLocation,
  ToolKind,
  ToolResult,
  ToolSpec,
} from '../types.js'
import type { FileCheckpoints } from './file-recording.js'

/**
 * What running a tool may do to the world, which decides the permission policy: `read` changes
 * nothing and never asks; `edit` changes files; `execute` runs commands or anything else whose
 * effects are unknown (MCP tools unless they declare themselves read-only).
 */
export type ToolEffect = 'read' | 'edit' | 'execute'

/** What a tool gets to run one call. */
export interface ToolContext {
  readonly sessionId: string
  /** The session's working directory (absolute). Local file access is confined to it. */
  readonly cwd: string
  readonly callId: string
  /** The turn the call belongs to. */
  readonly turn: number
  readonly client: ClientBridge
  /** Aborts when the turn is cancelled; a tool must stop promptly. */
  readonly signal: AbortSignal
  /**
   * Shows the editor what the running call has so far (e.g. an embedded terminal), as a
   * `tool_call_update` that stays `in_progress`.
   */
  readonly progress: (content: readonly ToolCallContent[]) => void
  /**
   * Shows a command the tool runs itself as it runs (its start, its output, its end), as a live
   * `command_output` update of the call (in no event; absent: shown nothing).
   */
  readonly commandOutput?: (report: CommandOutputReport) => void
  /**
   * Streams a `session/update` that is not about the call itself (the plan a call set), tagged with
   * the seq of the event it comes from.
   */
  readonly sendUpdate?: (update: SessionUpdate, seq: number) => void
  /** The session's additional workspace directories: the file tools may work inside them too. */
  readonly additionalDirectories?: readonly string[]
  /** The session's mode when the call runs (the permission policy already applied it). Absent: `ask`. */
  readonly mode?: string
  /** The tools this turn may run (absent: all); a tool that spawns work must not widen it. */
  readonly allowedTools?: ReadonlySet<string>
  /** The tool's {@link Tool.preview} the user was shown when asked; `run` must not act on another state. */
  readonly previewed?: ToolPreview
  /** Where a tool that changes files records each change (absent: nothing is recorded). */
  readonly checkpoints?: FileCheckpoints
}

/** One report of {@link ToolContext.commandOutput}: a `command_output` update less its call's id. */
export type CommandOutputReport = Omit<CommandOutputUpdate, 'sessionUpdate' | 'toolCallId'>

/** What a call would do, worked out before the user is asked (an edit's diff), shown with the question. */
export interface ToolPreview {
  readonly content: readonly ToolCallContent[]
  readonly locations?: readonly ToolCallLocation[]
  /** The state the preview was made from (a file's text; null: no file), handed back to `run`. */
  readonly basis?: string | null
}

/**
 * A tool the model can call. Its input is validated against `spec.inputSchema` before `run` sees
 * it, so `run` may rely on the schema's shape. `run` returns the result; it may also throw, which
 * the turn loop turns into an error result (a tool never crashes a turn).
 */
export interface Tool {
  readonly spec: ToolSpec
  readonly kind: ToolKind
  readonly effect: ToolEffect
  /**
   * Whether the model is told of the tool in a turn with this client (absent: always): a tool
   * that needs something of the editor (`ask_user`: its forms) is left out where it cannot work.
   */
  offeredTo?(client: ClientBridge): boolean
  /** A short human title for the editor, from the call's input (which may be malformed). */
  title(input: JsonValue): string
  /** The files the call touches (absolute paths), for the editor to follow. */
  locations?(input: JsonValue, cwd: string): ToolCallLocation[]
  /**
   * What an "always" permission answer covers for this call: by default the tool itself; a tool
   * can narrow it (`run_command`: the exact command line).
   */
  permissionScope?(input: JsonValue): string
  /**
   * The change the call would make, shown in the pending tool call and the permission request when
   * the user is asked (only then). A failure here is the call's result and nobody is asked.
   */
  preview?(input: JsonValue, context: ToolContext): Promise<ToolPreview>
  run(input: JsonValue, context: ToolContext): Promise<ToolResult>
  /**
   * Calls of this tool in one step run concurrently with each other (bounded by the agent's
   * `maxConcurrentSubagents`); other tools run one at a time, in call order.
   */
  readonly concurrent?: boolean
  /**
   * The tool ends its own work when the signal aborts and settles only once that work is
   * recorded (a subagent's `turn/end`); the turn waits for it instead of abandoning it.
   */
  readonly settlesOnAbort?: boolean
  /**
   * The tool announces its own `in_progress` updates (with a title and `_meta` of its own); the
   * turn loop then sends none for it.
   */
  readonly ownsProgress?: boolean
}

/** Thrown by tools for a failure the model should read as the result (no stack, just the message). */
export class ToolFailure extends Error {
  override name = 'ToolFailure'
}

/** A field of a tool input (which may be malformed), if it is an object that has one. */
export function fieldOf(input: JsonValue, name: string): JsonValue | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined
  return (input as { readonly [key: string]: JsonValue })[name]
}

/** A string field of a tool input, if it is one. */
export function stringField(input: JsonValue, name: string): string | undefined {
  const value = fieldOf(input, name)
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** The `path` of a tool input, if it has one. */
export function pathOf(input: JsonValue): string | undefined {
  return stringField(input, 'path')
}
