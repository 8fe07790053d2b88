import type { Context } from 'cordis'
import {
  type ConfigValue,
  type Cost,
  lastTurnUsage,
  ownCost,
  type Session,
  type SessionEvent,
  storableEventData,
  type TurnEndReason,
} from '../session/index.js'
import type { CheckpointBlobs } from './checkpoints/blob-port.js'
import type { RestoreFiles } from './checkpoints/restore-contract.js'
import type { EditorFiles } from './checkpoints/restore-io.js'
import { SessionFiles } from './checkpoints/session-files.js'
import type { CompactionSettings } from './compaction/turn-compaction.js'
import type { SessionModeId } from './config/modes.js'
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
import { recordedPromptInputs, recordPromptInputs } from './instructions/prompt-inputs.js'
import { modelSampler } from './mcp/model-sampler.js'
import { McpSessions } from './mcp/session-mcp.js'
import type { Notice } from './notices/notice.js'
import { updatePlanTool } from './plan/update-plan-tool.js'
import { runAfterTurn } from './rewind/after-turn.js'
import { delegateTool } from './subagents/index.js'
import { builtinTools } from './tools/index.js'
import { ToolRegistry } from './tools/registry.js'
import type { Tool } from './tools/tool.js'
import { errorMessage } from './turn/model-step.js'
import { systemPrompt } from './turn/system-prompt.js'
import { type TurnEnding, TurnRun } from './turn/turn-run.js'
import type { ModelProvider, PromptCapabilities, ToolSpec, TurnOutcome, TurnRequest } from './types.js'

declare module 'cordis' {
  interface Context {
    agent: AgentService
  }
}

export interface AgentConfig {
  /** The model behind every prompt. */
  readonly provider: ModelProvider
  /** Model requests per turn before it ends with `max-turn-requests`. Default 32. */
  readonly maxSteps?: number
  /** The global tools the model may call. Default: {@link builtinTools}. */
  readonly tools?: readonly Tool[]
  /**
   * The mode of a session, which the permission policy follows. Default: the session's configured
   * mode (a `config/set` event of its log), `ask` when none was set.
   */
  readonly modeOf?: (session: Session) => SessionMode
  /** MCP servers: ms allowed to connect, list tools and answer each call. Default 60000. */
  readonly mcpTimeoutMs?: number
  /** MCP servers: sampling requests one server may make per turn. Default 10. */
  readonly mcpSamplingPerTurn?: number
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
}

export interface SubagentConfig {
  /** Delegations of one step that run at once; the others wait for a slot. Default 4. */
  readonly maxConcurrent?: number
  /** Model requests per child turn. Default: the agent's `maxSteps`. */
  readonly maxSteps?: number
}

interface RunningTurn {
  readonly controller: AbortController
  readonly done: Promise<unknown>
  readonly permissions: LivePermissions
}

/**
 * The agent, service `ctx.agent`: runs prompt turns on sessions of `ctx.sessions`, one at a time
 * per session. Plug it with {@link agentPlugin}.
 */
export class AgentService {
  readonly provider: ModelProvider
  readonly tools: ToolRegistry
  readonly maxSteps: number
  /** The session's current mode (what the permission policy follows). */
  modeOf: (session: Session) => SessionMode
  /** The MCP servers of each live session; their tools are entries of {@link tools}. */
  readonly mcp: McpSessions
  /** The session options this agent offers (mode, model, reasoning effort when the provider has it). */
  readonly configSpecs: readonly ConfigOptionSpec[]
  /** Delegations (calls of `concurrent` tools) of one step that run at once. */
  readonly maxConcurrentSubagents: number
  /** What the file tools change, recorded per turn, and the restore that puts it back. */
  readonly files: SessionFiles
  /** See {@link AgentConfig.notices}. */
  readonly configNotices: readonly Notice[]
  readonly compaction: CompactionSettings
  private readonly running = new Map<string, RunningTurn>()
  private cancellingAll = false

  constructor(
    private readonly ctx: Context,
    config: AgentConfig,
  ) {
    if (!config?.provider) throw new TypeError('agentPlugin needs a model provider (config.provider)')
    this.provider = config.provider
    this.files = new SessionFiles(() => this.ctx.sessions, config.checkpointBlobs)
    this.tools = new ToolRegistry(config.tools ?? builtinTools())
    this.tools.register(updatePlanTool(() => this.ctx.sessions))
    this.configSpecs = configOptionSpecs(this.provider, config.defaultMode)
    this.maxSteps = positive('maxSteps', config.maxSteps ?? 32)
    this.configNotices = config.notices ?? []
    this.compaction = config.compaction ?? {}
    this.modeOf = config.modeOf ?? ((session) => sessionMode(this.config(session).mode))
    const subagents = config.subagents === false ? undefined : (config.subagents ?? {})
    this.maxConcurrentSubagents = positive('subagents.maxConcurrent', subagents?.maxConcurrent ?? 4)
    if (subagents) {
      this.tools.register(
        delegateTool({
          sessions: () => this.ctx.sessions,
          runTurn: (child, request) => this.runTurn(child, request),
          maxSteps: positive('subagents.maxSteps', subagents.maxSteps ?? this.maxSteps),
          permissionsOf: (sessionId) => this.permissionsOf(sessionId),
          toolNames: (sessionId) =>
            this.tools
              .forSession(sessionId)
              .specs()
              .map((spec) => spec.name),
        }),
      )
    }
    this.mcp = new McpSessions({
      registry: this.tools,
      logger: ctx.logger('mcp'),
      timeoutMs: config.mcpTimeoutMs ?? 60_000,
      isBusy: (sessionId) => this.isRunning(sessionId),
      ...(config.mcpSamplingPerTurn !== undefined && { samplingPerTurn: config.mcpSamplingPerTurn }),
      sampler: modelSampler({
        provider: this.provider,
        sessions: () => this.ctx.sessions,
        config: (session) => this.config(session),
        permissionsOf: (sessionId) => this.permissionsOf(sessionId),
      }),
    })
    ctx.on('session/disposed', (session) => {
      this.files.forget(session.id)
      void this.mcp.close(session.id)
    })
    ctx.on('dispose', async () => {
      for (const turn of this.running.values()) turn.controller.abort()
      await this.mcp.closeAll()
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
   * option or value not offered; nothing changes.
   */
  async setConfig(session: Session, option: string, value: ConfigValue): Promise<SessionEvent | undefined> {
    const event = setSessionConfig(session, this.configSpecs, option, value)
    if (event) await this.ctx.sessions.flush(session.id)
    return event
  }

  /**
   * The live permissions of the turn running on this session (a subagent's capped by its parent's),
   * or the session's own when none runs. Read them at each decision; do not keep what they return.
   */
  permissionsOf(sessionId: string): LivePermissions {
    const running = this.running.get(sessionId)?.permissions
    if (running) return running
    return this.ownPermissions(this.ctx.sessions.require(sessionId))
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
    if (!this.needsPromptInputs(session)) return
    if (await recordPromptInputs(session)) await this.ctx.sessions.flush(session.id)
  }

  private needsPromptInputs(session: Session): boolean {
    return this.provider.takesSystemPrompt === true && recordedPromptInputs(session) === undefined
  }

  /** True while a turn runs on this session. */
  isRunning(sessionId: string): boolean {
    return this.running.has(sessionId)
  }

  /**
   * Cancels the turn running on this session, if any, and resolves once it has ended (its
   * `turn/end` written and flushed, or its failure settled). Resolves at once when none runs.
   */
  async cancel(sessionId: string): Promise<void> {
    const turn = this.running.get(sessionId)
    if (!turn) return
    turn.controller.abort()
    await turn.done.catch(() => {})
  }

  /**
   * Cancels every running turn and every turn started from now on (the server is ending), resolving
   * once the running ones have ended.
   */
  async cancelAll(): Promise<void> {
    this.cancellingAll = true
    await Promise.all([...this.running.keys()].map((sessionId) => this.cancel(sessionId)))
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
    const controller = new AbortController()
    const onAbort = () => controller.abort()
    if (request.signal.aborted || this.cancellingAll) controller.abort()
    else request.signal.addEventListener('abort', onAbort, { once: true })
    const permissions = cappedPermissions(this.ownPermissions(session), request.ceiling)
    this.files.ranWith(session.id, request.client)
    const done = this.drive(session, request, permissions, controller.signal)
    this.running.set(session.id, { controller, done, permissions })
    let outcome: TurnOutcome
    try {
      outcome = await done
    } catch (error) {
      runAfterTurn(session, false)
      throw error
    } finally {
      request.signal.removeEventListener('abort', onAbort)
      this.running.delete(session.id)
      if (session.openTurn === undefined) this.mcp.flush(session, request.sendUpdate, request.notices)
      await pen.release()
    }
    // What a command left for after its turn (a `/rewind`), once the turn is durable.
    await runAfterTurn(session, outcome.endReason === 'completed')
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

  private async drive(
    session: Session,
    request: TurnRequest,
    permissions: LivePermissions,
    signal: AbortSignal,
  ): Promise<TurnOutcome> {
    const logger = this.ctx.logger('agent')
    // Awaited only when it has work: a turn of a prepared session starts in the same tick.
    if (this.needsPromptInputs(session)) await this.prepareSession(session)
    const run = new TurnRun(
      session,
      request,
      {
        provider: this.provider,
        sessions: this.ctx.sessions,
        tools: this.tools,
        permissions,
        beforeStep: (send, stepSignal) => {
          const waiting = this.mcp.starting(session.id, stepSignal)
          if (!waiting) return this.mcp.flush(session, send, request.notices)
          return waiting.then(() => this.mcp.flush(session, send, request.notices))
        },
        configSpecs: this.configSpecs,
        maxSteps: this.maxSteps,
        maxConcurrent: this.maxConcurrentSubagents,
        ...(this.provider.takesSystemPrompt === true && {
          systemPrompt: (target: Session, mode: string, tools: readonly ToolSpec[]) =>
            systemPrompt({ recorded: recordedPromptInputs(target), cwd: target.cwd, mode, tools }),
        }),
        compaction: this.compaction,
        onSendError: (error) => logger.warn('session/update could not be sent: %s', errorMessage(error)),
        checkpoints: this.files.recorder(session),
        restoreFiles: (request) => this.restoreFiles(request),
      },
      signal,
    )
    let ending: TurnEnding
    try {
      ending = await run.run()
    } catch (error) {
      if (session.openTurn !== run.turn) throw error
      logger.error('turn %d of %s failed: %s', run.turn, session.id, errorMessage(error))
      ending = { reason: 'error', message: `internal error: ${errorMessage(error)}` }
      try {
        session.append(turnEnd(run.turn, ending, ownCost(session)))
      } catch {
        throw error
      }
      await this.ctx.sessions.flush(session.id)
      return withUsage(turnOutcome(session.lastSeq, ending), session)
    }
    const end = session.append(turnEnd(run.turn, ending, ownCost(session)))
    await this.ctx.sessions.flush(session.id)
    return withUsage(turnOutcome(end.seq, ending), session)
  }
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${value}`)
  }
  return value
}

/** The `turn/end` event; `cost`: the session's own cost so far (what a listing reads). */
function turnEnd(turn: number, ending: TurnEnding, cost: Cost | undefined) {
  return {
    type: 'turn/end' as const,
    data: {
      turn,
      reason: ending.reason,
      ...(ending.message !== undefined && { message: ending.message }),
      ...(cost !== undefined && { cost }),
    },
  }
}

/** `outcome` with the usage the turn that just ended reported, if any. */
function withUsage(outcome: TurnOutcome, session: Session): TurnOutcome {
  const usage = lastTurnUsage(session)
  return usage === undefined ? outcome : { ...outcome, usage }
}

const STOP_REASONS: Readonly<Record<string, TurnOutcome['stopReason']>> = {
  completed: 'end_turn',
  'max-tokens': 'max_tokens',
  'max-turn-requests': 'max_turn_requests',
  refusal: 'refusal',
  cancelled: 'cancelled',
}

/** How a turn whose `turn/end` (at `seq`) records `ending` is answered: its stop reason, or the error. */
export function turnOutcome(seq: number, ending: TurnEnding): TurnOutcome {
  const reason: TurnEndReason = ending.reason
  const stopReason = STOP_REASONS[reason] ?? 'end_turn'
  if (reason === 'error')
    return { stopReason, seq, endReason: reason, error: ending.message ?? 'the turn failed' }
  return { stopReason, seq, endReason: reason }
}

/** The cordis plugin that provides `ctx.agent`. Needs `ctx.sessions`. */
export function agentPlugin(ctx: Context, config: AgentConfig): void {
  ctx.set('agent', new AgentService(ctx, config))
}
agentPlugin.inject = ['sessions']
agentPlugin.reusable = false
