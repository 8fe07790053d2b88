import type { Session } from '../../session/index.js'
import type { CheckpointBlobs } from '../checkpoints/blob-port.js'
import type { CompactionSettings } from '../compaction/turn-compaction.js'
import type { GoalOptions } from '../goals/goal-options.js'
import type { McpOptions } from '../mcp/mcp-options.js'
import type { Notice } from '../notices/notice.js'
import type { Tool } from '../tools/tool.js'
import type { ModelProvider } from '../types.js'
import type { SessionModeId } from './modes.js'
import type { SessionMode } from './permissions.js'

/** What the agent plugin (`agentPlugin`) is configured with. */
export interface AgentConfig {
  /** The model behind every prompt. */
  readonly provider: ModelProvider
  /** Model requests per turn before it ends with `max-turn-requests`. Default 32. */
  readonly maxSteps?: number
  /** The global tools the model may call. Default: the built-in tools (`builtinTools`). */
  readonly tools?: readonly Tool[]
  /**
   * The mode of a session, which the permission policy follows. Default: the session's configured
   * mode (a `config/set` event of its log), `ask` when none was set.
   */
  readonly modeOf?: (session: Session) => SessionMode
  /** How a session's MCP servers run (their time limit, their sampling budget). */
  readonly mcp?: McpOptions
  /** Where file checkpoints keep content (the store's blob directory). Default: in memory. */
  readonly checkpointBlobs?: CheckpointBlobs
  /**
   * Fork-based subagents: the `delegate` tool, registered after `tools`. `false` leaves it out.
   * Default: on, 4 delegations of one step at once, each child turn bounded by `maxSteps`.
   */
  readonly subagents?: false | SubagentConfig
  /**
   * Configuration notices (settings this run ignores): said once to each client that shows notices,
   * with the first session it opens; the caller logs them at start for every other client.
   */
  readonly notices?: readonly Notice[]
  /** When conversations are compacted by themselves (the context window, the threshold). Default: never. */
  readonly compaction?: CompactionSettings
  /** The mode a new session starts in (a configuration file's `defaultMode`). Default `ask`. */
  readonly defaultMode?: SessionModeId
  /** How the agent works toward session goals (`_session/goal`). */
  readonly goals?: GoalOptions
}

export interface SubagentConfig {
  /** Delegations of one step that run at once; the others wait for a slot. Default 4. */
  readonly maxConcurrent?: number
  /** Model requests per child turn. Default: the agent's `maxSteps`. */
  readonly maxSteps?: number
}

/** `value`, checked to be a positive integer (a RangeError naming the setting `name` otherwise). */
export function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${value}`)
  }
  return value
}
