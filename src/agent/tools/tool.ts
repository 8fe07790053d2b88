import type { JsonValue } from '../../session/index.js'
import { modeDecision } from '../modes.js'
import type { ClientBridge, SubagentLink, SubagentView, ToolResult, ToolSpec } from '../types.js'

/** ACP `ToolKind`: how an editor shows a tool call. */
export type ToolKind =
  | 'read'
  | 'edit'
  | 'delete'
  | 'move'
  | 'search'
  | 'execute'
  | 'think'
  | 'fetch'
  | 'switch_mode'
  | 'other'

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
  /** The session's additional workspace directories: the file tools may work inside them too. */
  readonly additionalDirectories?: readonly string[]
  /** The session's mode when the call runs (see `modes.ts`: `modeDecision`). Absent: `ask`. */
  readonly mode?: string
  /** The tools this turn may run (absent: all); a tool that spawns work must not widen it. */
  readonly allowedTools?: ReadonlySet<string>
  /** How the editor is shown a subagent (from the turn's request), if it can be. */
  readonly openSubagent?: (link: SubagentLink) => SubagentView
}

/**
 * A tool the model can call. `run` returns the result the model sees; it may also throw, which
 * the turn loop turns into an error result (a tool never crashes a turn).
 */
export interface Tool {
  readonly spec: ToolSpec
  readonly kind: ToolKind
  /** A short human title for the editor, from the call's input (which may be malformed). */
  title(input: JsonValue): string
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
}

/** Tools by name. Names are unique; the order of registration is the order the model sees. */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>()

  constructor(tools: readonly Tool[] = []) {
    for (const tool of tools) this.register(tool)
  }

  /** Adds a tool. Throws when its name is taken. */
  register(tool: Tool): void {
    if (this.tools.has(tool.spec.name)) throw new Error(`tool ${tool.spec.name} is already registered`)
    this.tools.set(tool.spec.name, tool)
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name)
  }

  /**
   * What the model is told about the tools; given a session mode, only the tools that mode lets
   * run (in `read-only`, none that changes anything).
   */
  specs(mode?: string): ToolSpec[] {
    const tools = [...this.tools.values()]
    const offered =
      mode === undefined ? tools : tools.filter((tool) => modeDecision(mode, tool.kind) !== 'deny')
    return offered.map((tool) => tool.spec)
  }
}

/** Thrown by tools for a failure the model should read as the result (no stack, just the message). */
export class ToolFailure extends Error {
  override name = 'ToolFailure'
}

/** An input field check for tools without a schema validator: the object, or a ToolFailure. */
export function inputObject(input: JsonValue): { readonly [key: string]: JsonValue } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ToolFailure('input must be a JSON object')
  }
  return input as { readonly [key: string]: JsonValue }
}

export function requiredString(fields: { readonly [key: string]: JsonValue }, name: string): string {
  const value = fields[name]
  if (typeof value !== 'string' || value === '')
    throw new ToolFailure(`input.${name} must be a non-empty string`)
  return value
}

export function optionalPositiveInt(
  fields: { readonly [key: string]: JsonValue },
  name: string,
): number | undefined {
  const value = fields[name]
  if (value === undefined || value === null) return undefined
  if (!Number.isSafeInteger(value) || (value as number) < 1) {
    throw new ToolFailure(`input.${name} must be a positive integer`)
  }
  return value as number
}
