import type { Session, SessionStore } from '../../session/index.js'
import type { RestoreFiles } from '../checkpoints/restore-contract.js'
import type { AgentConfig } from '../config/agent-config.js'
import type { LivePermissions } from '../config/permissions.js'
import type { UpdateSender } from '../notices/notice.js'
import type { Tool } from '../tools/tool.js'
import type { SlashCommand } from '../turn/commands.js'
import type { ModelProvider, TurnOutcome, TurnRequest } from '../types.js'

/** What the agent hands a feature when it starts, for the feature to build what it offers. */
export interface FeatureHost {
  readonly config: AgentConfig
  readonly provider: ModelProvider
  /** Model requests per turn (the agent's `maxSteps`). */
  readonly maxSteps: number
  readonly sessions: () => SessionStore
  /** The names of the tools a session's turns are told about. */
  readonly toolNames: (sessionId: string) => string[]
  /** Runs a turn on a session, as `AgentService.runTurn`. */
  readonly runTurn: (session: Session, request: TurnRequest) => Promise<TurnOutcome>
  /** The live permissions of the turn running on a session (see `AgentService.permissionsOf`). */
  readonly permissionsOf: (sessionId: string) => LivePermissions
  /** Puts back what the file tools changed after a boundary (see `AgentService.restoreFiles`). */
  readonly restoreFiles: RestoreFiles
}

/**
 * What one feature adds to the agent: its slash commands, its tools and its hooks. A feature is a
 * function of the {@link FeatureHost} (see `BUILTIN_FEATURES`); a new one is a new file and a line
 * in that list, not a field of `AgentService`, `TurnRunOptions` or `CommandContext`.
 */
export interface AgentFeature {
  /** Slash commands every session offers (`available_commands_update`, in list order). */
  readonly commands?: readonly SlashCommand[]
  /** Tools offered to every session, registered after the configured ones. */
  readonly tools?: readonly Tool[]
  /**
   * After a turn of `session` ended and its `turn/end` is durable, before the prompt is answered
   * (`completed`: it ended `completed`). A rejection fails the prompt, after every hook ran.
   */
  readonly afterTurn?: (session: Session, completed: boolean) => Promise<void>
  /**
   * Before each model request of a turn of `session`, while its log may take standalone events,
   * with the turn's update channel and signal. Awaited only when it returns a promise.
   */
  readonly beforeStep?: (session: Session, send: UpdateSender, signal: AbortSignal) => void | Promise<void>
  /** A session of this process was disposed: forget what the feature holds for it. */
  readonly forget?: (sessionId: string) => void
}

/** A feature: what it adds, built from the agent it plugs into (undefined: it is switched off). */
export type Feature = (host: FeatureHost) => AgentFeature | undefined
