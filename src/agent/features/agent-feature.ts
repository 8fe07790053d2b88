import type { Logger } from 'cordis'
import type { Session, SessionStore } from '../../session/index.js'
import type { RestoreFiles } from '../checkpoints/restore-contract.js'
import type { AgentConfig } from '../config/agent-config.js'
import type { LivePermissions } from '../config/permissions.js'
import type { EffectiveConfig } from '../config/session-config.js'
import type { UpdateSender } from '../notices/notice.js'
import type { ToolRegistry } from '../tools/registry.js'
import type { Tool } from '../tools/tool.js'
import type { SlashCommand } from '../turn/commands/commands.js'
import type { TurnHooks } from '../turn/turn-scope.js'
import type { ModelProvider, TurnOutcome, TurnRequest } from '../types.js'

/** What the agent hands a feature when it starts, for the feature to build what it offers. */
export interface FeatureHost {
  readonly config: AgentConfig
  readonly provider: ModelProvider
  /** Model requests per turn (the agent's `maxSteps`). */
  readonly maxSteps: number
  readonly sessions: () => SessionStore
  /** The agent's tools: a feature offers a session tools of its own here (`registerForSession`). */
  readonly tools: ToolRegistry
  /** A logger of the agent's context, named `name`. */
  readonly logger: (name: string) => Logger
  /** The names of the tools a session's turns are told about. */
  readonly toolNames: (sessionId: string) => string[]
  /** The session's effective configuration (see `AgentService.config`). */
  readonly sessionConfig: (session: Session) => EffectiveConfig
  /** True while a turn runs on the session. */
  readonly isRunning: (sessionId: string) => boolean
  /** Runs a turn on a session, as `AgentService.runTurn`. */
  readonly runTurn: (session: Session, request: TurnRequest) => Promise<TurnOutcome>
  /** The live permissions of the turn running on a session (see `AgentService.permissionsOf`). */
  readonly permissionsOf: (sessionId: string) => LivePermissions
  /** Puts back what the file tools changed after a boundary (see `AgentService.restoreFiles`). */
  readonly restoreFiles: RestoreFiles
}

/**
 * What one feature adds to the agent: its slash commands, its tools, its hooks and the object the
 * protocol layer reaches it by. A feature is a function of the {@link FeatureHost} (see
 * `BUILTIN_FEATURES`); a new one is a new file and a line in that list, not a field of
 * `AgentService`, `TurnRunOptions` or `CommandContext`.
 */
export interface AgentFeature {
  /**
   * What the protocol layer calls of this feature, found by its class:
   * `agent.features.get(SessionGoals)` (one instance of a class per agent).
   */
  readonly api?: object
  /** Slash commands every session offers (`available_commands_update`, in list order). */
  readonly commands?: readonly SlashCommand[]
  /** Tools offered to every session, registered after the configured ones. */
  readonly tools?: readonly Tool[]
  /**
   * A turn of `session` starts (`signal`: the turn's own): the hooks of this one turn, if any.
   * Called synchronously once the turn is the session's running one.
   */
  readonly turn?: (session: Session, request: TurnRequest, signal: AbortSignal) => TurnHooks | undefined
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
  /** The session's work was cancelled (`AgentService.cancel`), whether or not a turn ran. */
  readonly cancel?: (sessionId: string) => void
  /** A session of this process was disposed: forget what the feature holds for it. */
  readonly forget?: (sessionId: string) => void
  /** The agent stops: release what the feature holds (awaited). */
  readonly dispose?: () => Promise<void>
}

/** A feature: what it adds, built from the agent it plugs into (undefined: it is switched off). */
export type Feature = (host: FeatureHost) => AgentFeature | undefined
