import type { Context } from 'cordis'
import { errorMessage } from '../lib/error-message.js'
import { type ConfigValue, type Session, type SessionEvent, storableEventData } from '../session/index.js'
import { builtinTools } from './builtin-tools.js'
import type { RestoreFiles } from './checkpoints/restore-contract.js'
import type { EditorFiles } from './checkpoints/restore-io.js'
import { SessionFiles } from './checkpoints/session-files.js'
import type { CompactionSettings } from './compaction/turn-compaction.js'
import { type AgentConfig, positive } from './config/agent-config.js'
import {
  cappedPermissions,
  type LivePermissions,
  type SessionMode,
  sessionMode,
  standingAnswersOf,
} from './config/permissions.js'
import { promptCapabilitiesOf } from './config/prompt-capabilities.js'
import {
  type ConfigOptionSpec,
  configOptionSpecs,
  type EffectiveConfig,
  effectiveConfig,
  setSessionConfig,
} from './config/session-config.js'
import { TurnInProgressError } from './errors.js'
import { featureHost } from './feature-host.js'
import { AgentFeatures } from './features/agent-features.js'
import { BUILTIN_FEATURES } from './features/builtin-features.js'
import { needsPromptInputs, recordPromptInputs } from './instructions/prompt-inputs.js'
import type { Notice } from './notices/notice.js'
import { PromptQueues } from './queue/prompt-queue.js'
import { ToolRegistry } from './tools/registry.js'
import { RunningTurns } from './turn/running-turns.js'
import { StreamingSteps } from './turn/streaming-steps.js'
import { sessionSystemPrompt } from './turn/system-prompt.js'
import { finishTurn } from './turn/turn-end.js'
import { TurnRun } from './turn/turn-run.js'
import type { TurnHooks } from './turn/turn-scope.js'
import type { ModelProvider, PromptCapabilities, TurnOutcome, TurnRequest } from './types.js'

export type { AgentConfig, SubagentConfig } from './config/agent-config.js'

declare module 'cordis' {
  interface Context {
    agent: AgentService
  }
}

/** One turn about to run: its session and request, its live permissions, signal and hooks. */
interface TurnStart {
  readonly session: Session
  readonly request: TurnRequest
  readonly permissions: LivePermissions
  readonly signal: AbortSignal
  readonly hooks: TurnHooks
}

/**
 * The agent, service `ctx.agent`: runs prompt turns on sessions of `ctx.sessions`, one at a time
 * per session. Plug it with {@link agentPlugin}. What its features offer the protocol layer (goals,
 * steering, MCP servers) is reached through {@link features} (`agent.features.get(SessionGoals)`).
 */
export class AgentService {
  readonly provider: ModelProvider
  readonly tools: ToolRegistry
  readonly maxSteps: number
  /** The session's current mode (what the permission policy follows). */
  modeOf: (session: Session) => SessionMode
  /** The session options this agent offers (mode, model, reasoning effort when the provider has it). */
  readonly configSpecs: readonly ConfigOptionSpec[]
  /** Delegations (calls of `concurrent` tools) of one step that run at once. */
  readonly maxConcurrentSubagents: number
  /** What the file tools change, recorded per turn, and the restore that puts it back. */
  readonly files: SessionFiles
  /** See {@link AgentConfig.notices}. */
  readonly configNotices: readonly Notice[]
  readonly compaction: CompactionSettings
  /** The prompts of each session waiting for its running turn (`session/prompt` queues there). */
  readonly queue = new PromptQueues()
  /** What the features add: slash commands, tools, hooks on a turn, their APIs (see `BUILTIN_FEATURES`). */
  readonly features: AgentFeatures
  private readonly running = new RunningTurns()
  /** The model steps streaming now: a `config/set` waits until the step's message is in the log. */
  private readonly streaming = new StreamingSteps()

  constructor(
    private readonly ctx: Context,
    config: AgentConfig,
  ) {
    if (!config?.provider) throw new TypeError('agentPlugin needs a model provider (config.provider)')
    this.provider = config.provider
    this.files = new SessionFiles(() => this.ctx.sessions, config.checkpointBlobs)
    this.tools = new ToolRegistry(config.tools ?? builtinTools())
    this.configSpecs = configOptionSpecs(this.provider, config.defaultMode)
    this.maxSteps = positive('maxSteps', config.maxSteps ?? 32)
    this.configNotices = config.notices ?? []
    this.compaction = config.compaction ?? {}
    this.modeOf = config.modeOf ?? ((session) => sessionMode(this.config(session).mode))
    const subagents = config.subagents === false ? undefined : (config.subagents ?? {})
    this.maxConcurrentSubagents = positive('subagents.maxConcurrent', subagents?.maxConcurrent ?? 4)
    // A session this process made fresh holds the cwd and directories its request named.
    ctx.on('session/created', (session) => {
      if (session.header.parentSession === undefined)
        this.files.openedIn(session.id, [session.cwd, ...session.additionalDirectories])
    })
    const files = () => ({ forget: (sessionId: string) => this.files.forget(sessionId) })
    this.features = new AgentFeatures(
      featureHost(ctx, this, config),
      [...BUILTIN_FEATURES, files],
      this.tools,
    )
    ctx.on('session/disposed', (session) => this.features.forget(session.id))
    ctx.on('dispose', async () => {
      this.running.abortAll()
      await this.features.dispose()
    })
  }

  /** ACP `promptCapabilities`: what the provider really passes on to its model. */
  get promptCapabilities(): PromptCapabilities {
    return promptCapabilitiesOf(this.provider)
  }

  /** The session's effective configuration: what its log records, defaults for the rest. */
  config(session: Session): EffectiveConfig {
    return effectiveConfig(this.configSpecs, session.config)
  }

  /**
   * Sets a session option and resolves with its `config/set` event once that is durable; undefined
   * when the option already had this value (nothing is written). Throws `INVALID_CONFIG` for an
   * option or value not offered; nothing changes. Waits while a model step of the session streams
   * (see `StreamingSteps`). `appended` hears the event as soon as it is in
   * the log (before it is durable), so that its caller shows it in log order.
   */
  async setConfig(
    session: Session,
    option: string,
    value: ConfigValue,
    appended?: (event: SessionEvent) => void,
  ): Promise<SessionEvent | undefined> {
    await this.streaming.passed(session.id)
    const event = setSessionConfig(session, this.configSpecs, option, value)
    if (event === undefined) return undefined
    appended?.(event)
    await this.ctx.sessions.flush(session.id)
    return event
  }

  /**
   * The live permissions of the turn running on this session (a subagent's capped by its parent's),
   * or the session's own when none runs. Read them at each decision; do not keep what they return.
   */
  permissionsOf(sessionId: string): LivePermissions {
    return this.running.permissions(sessionId) ?? this.ownPermissions(this.ctx.sessions.require(sessionId))
  }

  private ownPermissions(session: Session): LivePermissions {
    return { mode: () => this.modeOf(session), standing: () => standingAnswersOf(session) }
  }

  /**
   * Fixes what the session's system prompt is built from (environment, `AGENTS.md` files) as an
   * `instructions:set` event, made durable, when the provider takes a system prompt and the log
   * records none yet: `session/new` calls it, and every turn before it starts (so a session
   * written before these inputs were recorded gets them, read then, once). A fork child and a
   * subagent inherit their parent's with the prefix; `/reload-instructions` records new ones.
   */
  async prepareSession(session: Session): Promise<void> {
    if (!needsPromptInputs(this.provider, session)) return
    if (await recordPromptInputs(session)) await this.ctx.sessions.flush(session.id)
  }

  /** True while a turn runs on this session. */
  isRunning(sessionId: string): boolean {
    return this.running.has(sessionId)
  }

  /**
   * Cancels the turn running on this session, if any (steers not yet delivered are dropped), and
   * resolves once it has ended (its `turn/end` written and flushed, or its failure settled).
   * Resolves at once when none runs. Queued prompts stay queued; the turns the agent would start
   * for the session's goal do not start (every feature's `cancel` hears it).
   */
  async cancel(sessionId: string): Promise<void> {
    this.features.cancel(sessionId)
    await this.running.cancel(sessionId)
  }

  /**
   * Cancels every running turn and every turn started from now on (the server is ending), resolving
   * once the running ones have ended.
   */
  async cancelAll(): Promise<void> {
    await Promise.all(this.running.cancelFromNow().map((sessionId) => this.cancel(sessionId)))
  }

  /**
   * Runs one prompt turn on `session` and resolves once its `turn/end` is durable. The log gets, in
   * order: `turn/start`, `user/message`, then per step `step/start`, `assistant/message` (when the
   * step produced text, a thought or usage), `tool/call`s, `tool/result`s and `step/end`, and finally
   * `turn/end` with `completed`, `max-tokens`, `max-turn-requests`, `refusal`, `cancelled` (the
   * request's signal aborted) or `error` (the provider failed; the outcome's `error` says how).
   * Text, thoughts, usage and tool calls stream live through `request.sendUpdate`, each tagged with
   * the seq of the event that records it, so a replay of the log shows the same.
   *
   * Throws {@link TurnInProgressError} (log untouched) while another turn runs on the session, and
   * `INVALID_EVENT` (log untouched) for a prompt the log cannot hold (see `MAX_JSON_DEPTH`). Rejects
   * when the log refuses an append (the session was closed or became read-only) or the flush failed.
   */
  async runTurn(session: Session, request: TurnRequest): Promise<TurnOutcome> {
    if (this.running.has(session.id) || session.openTurn !== undefined) {
      throw new TurnInProgressError(session.id)
    }
    // A prompt the log cannot hold is refused before the turn starts: the log stays as it was.
    storableEventData('user/message', { turn: session.lastTurn + 1, content: request.prompt })
    // The pen for the whole turn (SESSION_LOCKED while another process writes the session).
    const pen = this.ctx.sessions.takePen(session)
    if (session.openTurn !== undefined) {
      void pen.release()
      throw new TurnInProgressError(session.id)
    }
    const { controller, release } = this.running.controller(request.signal)
    const permissions = cappedPermissions(this.ownPermissions(session), request.subagent?.ceiling)
    const hooks = this.features.turn(session, request, controller.signal)
    this.files.ranWith(session.id, request.client)
    const done = this.drive({ session, request, permissions, signal: controller.signal, hooks })
    this.running.begin(session.id, { controller, done, permissions })
    let outcome: TurnOutcome
    try {
      outcome = await done
    } catch (error) {
      void this.features.afterTurn(session, false).catch(() => {})
      throw error
    } finally {
      release()
      this.running.end(session.id)
      hooks.settled?.()
      await pen.release()
    }
    // What a command left for after its turn (a `/rewind`), once the turn is durable.
    await this.features.afterTurn(session, outcome.endReason === 'completed')
    return outcome
  }

  /**
   * Puts the files the session's built-in file tools changed after a closed boundary back as they
   * were at it (see `restoreSessionFiles`). Throws {@link TurnInProgressError} for a restore that is
   * not a dry run while a turn runs on the session (cancel it first). `editor`: the client whose
   * `fs/write_text_file` writes (open buffers follow); default the one that last prompted it.
   */
  restoreFiles = async (...[request, editor]: [...Parameters<RestoreFiles>, editor?: EditorFiles]) => {
    if (!request.dryRun && this.isRunning(request.session.id))
      throw new TurnInProgressError(request.session.id)
    return this.files.restore(request, editor)
  }

  private async drive({ session, request, permissions, signal, hooks }: TurnStart): Promise<TurnOutcome> {
    const logger = this.ctx.logger('agent')
    // Awaited only when it has work: a turn of a prepared session starts in the same tick.
    if (needsPromptInputs(this.provider, session)) await this.prepareSession(session)
    const run = new TurnRun({
      session,
      request,
      signal,
      provider: this.provider,
      sessions: this.ctx.sessions,
      tools: this.tools,
      permissions,
      streaming: this.streaming,
      hooks,
      configSpecs: this.configSpecs,
      maxSteps: this.maxSteps,
      maxConcurrent: this.maxConcurrentSubagents,
      ...(this.provider.takesSystemPrompt === true && { systemPrompt: sessionSystemPrompt }),
      compaction: this.compaction,
      onSendError: (error) => logger.warn('session/update could not be sent: %s', errorMessage(error)),
      checkpoints: this.files.recorder(session),
      commands: this.features.commands,
    })
    return finishTurn(session, run, () => this.ctx.sessions.flush(session.id), logger)
  }
}

/** The cordis plugin that provides `ctx.agent`. Needs `ctx.sessions`. */
export function agentPlugin(ctx: Context, config: AgentConfig): void {
  ctx.set('agent', new AgentService(ctx, config))
}
agentPlugin.inject = ['sessions']
agentPlugin.reusable = false
