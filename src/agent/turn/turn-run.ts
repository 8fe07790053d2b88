import { errorMessage } from '../../lib/error-message.js'
import {
  messageChunk,
  type Session,
  type SessionStore,
  type SessionUpdate,
  titleUpdate,
  userMessage,
} from '../../session/index.js'
import type { FileCheckpoints } from '../checkpoints/recorder.js'
import {
  type CompactionSettings,
  type RequestShape,
  type TurnCompaction,
  turnCompaction,
} from '../compaction/turn-compaction.js'
import { type LivePermissions, offeredIn } from '../config/permissions.js'
import { type ConfigOptionSpec, effectiveConfig } from '../config/session-config.js'
import { NoticeChannel } from '../notices/notice.js'
import type { ToolRegistry } from '../tools/registry.js'
import type { ModelProvider, ToolSpec, TurnRequest } from '../types.js'
import { parseCommand, type SlashCommand } from './commands.js'
import { type StreamedStep, streamModelStep } from './model-step.js'
import { deliverSteers } from './steer-delivery.js'
import type { SteerInbox } from './steer-inbox.js'
import { stepCost, usageUpdateOf, windowOf } from './step-usage.js'
import type { StreamingSteps } from './streaming-steps.js'
import { CANCELLED_TOOL_OUTPUT } from './tool-execution.js'
import { TurnCalls } from './turn-calls.js'
import type { TurnEnding, TurnScope } from './turn-scope.js'

export { CANCELLED_TOOL_OUTPUT } from './tool-execution.js'

export interface TurnRunOptions {
  readonly provider: ModelProvider
  /** The store, for slash commands that fork. */
  readonly sessions: SessionStore
  readonly tools: ToolRegistry
  /**
   * The turn's permissions, read live: the mode at each step decides which tools are offered, and
   * mode and standing answers at each call decide what runs, asks or is refused.
   */
  readonly permissions: LivePermissions
  /**
   * Awaited before each step, with the turn's update channel and signal, while the log may take
   * standalone events.
   */
  readonly beforeStep?: (
    send: (update: SessionUpdate, seq: number) => void,
    signal: AbortSignal,
  ) => void | Promise<void>
  /** Where a streaming step is marked, so that nothing is appended before its message. */
  readonly streaming?: StreamingSteps
  /** The session options: each model request reads the session's mode, model and effort anew. */
  readonly configSpecs: readonly ConfigOptionSpec[]
  readonly maxSteps: number
  /** How many calls of `concurrent` tools (delegations) of one step run at once. */
  readonly maxConcurrent: number
  /** The system prompt of one request (the session, its mode, the tools offered); absent: none. */
  readonly systemPrompt?: (session: Session, mode: string, tools: readonly ToolSpec[]) => string
  /** Where a failed `sendUpdate` is reported; it never stops the turn. */
  readonly onSendError?: (error: unknown) => void
  /** Where the file tools record their changes, for a rewind to restore (absent: nowhere). */
  readonly checkpoints?: FileCheckpoints
  /** The slash commands a prompt may invoke (when the request takes commands). */
  readonly commands: readonly SlashCommand[]
  /** When the conversation is compacted by itself (compaction/turn-compaction.ts). Default: never. */
  readonly compaction?: CompactionSettings
  /**
   * Where the user's steers of this turn wait (`_session/steering`): each is recorded as a
   * `user/message {steered: true}` before the next model request, after the step's tool results
   * (a step that would end the turn gets a next one instead). Closed when the turn stops taking
   * them. Absent: the turn takes none.
   */
  readonly steers?: SteerInbox
}

/**
 * Runs one turn's body on `session`: appends `turn/start`, `user/message` and the steps (model,
 * then tools, until the model stops, the signal aborts, the provider fails or `maxSteps` is
 * reached), and returns the reason the caller writes in `turn/end`. On return no step is open and
 * every recorded tool call has a result. It throws only when the log itself refuses an append.
 */
export class TurnRun {
  readonly turn: number
  /** Where this turn's notices go (see `NoticeChannel`). */
  readonly notices: NoticeChannel
  /** What the turn's collaborators share. */
  private readonly scope: TurnScope
  private readonly calls: TurnCalls
  private compaction: TurnCompaction | undefined

  constructor(
    private readonly session: Session,
    private readonly request: TurnRequest,
    private readonly options: TurnRunOptions,
    private readonly signal: AbortSignal,
  ) {
    this.turn = session.lastTurn + 1
    this.scope = {
      session,
      turn: this.turn,
      request,
      signal,
      provider: options.provider,
      send: (update, seq) => this.send(update, seq),
      ...(options.checkpoints && { checkpoints: options.checkpoints }),
    }
    this.notices = new NoticeChannel(this.scope.send)
    this.calls = new TurnCalls(this.scope, options.maxConcurrent)
  }

  async run(): Promise<TurnEnding> {
    const { session, turn } = this
    const invoked =
      this.request.commands === true ? parseCommand(this.request.prompt, this.options.commands) : undefined
    // A command's turn is marked, so the model's history leaves it out (it is not conversation).
    const start = session.append({
      type: 'turn/start',
      data: { turn, ...(invoked && { command: invoked.command.name }) },
    })
    this.compaction = turnCompaction(this.scope, this.options.compaction ?? {}, start.seq, this.notices)
    const titleBefore = session.title
    const user = session.append({ type: 'user/message', data: { turn, content: this.request.prompt } })
    this.request.onUserMessage?.(session.messageIdAt(user.seq), user.seq)
    if (this.request.subagent) {
      this.send(userMessage(session.messageIdAt(user.seq), this.request.prompt), user.seq)
    }
    if (titleBefore === undefined && session.title !== undefined) {
      this.send(titleUpdate(session.title, user.time), user.seq)
    }
    try {
      if (invoked) return await this.runCommand(invoked.command, invoked.args, start.seq)
      return await this.runSteps()
    } finally {
      // Synchronously after the last step's decision: a steer is delivered or refused, never lost.
      this.options.steers?.close()
    }
  }

  private async runSteps(): Promise<TurnEnding> {
    const steers = this.options.steers
    const maxSteps = this.request.subagent?.maxSteps ?? this.options.maxSteps
    for (let step = 1; step <= maxSteps; step++) {
      if (this.signal.aborted) return { reason: 'cancelled' }
      if (step > 1 && steers) deliverSteers(this.scope, steers)
      const ending = await this.runStep(step)
      if (!ending) continue
      // A steer that came during the last step is answered by one more step of this turn.
      if (ending.reason === 'completed' && steers?.waiting && step < maxSteps) continue
      return ending
    }
    return { reason: 'max-turn-requests' }
  }

  /**
   * A slash command's turn: one step whose assistant message is the command's answer (a command
   * that throws answers with its failure); the model is not asked.
   */
  private async runCommand(command: SlashCommand, args: string, turnStart: number): Promise<TurnEnding> {
    const { session, turn } = this
    session.append({ type: 'step/start', data: { turn, step: 1 } })
    let reply: string
    try {
      reply = await command.run({
        ...this.scope,
        sessions: this.options.sessions,
        args,
        turnStart,
        requestShape: () => this.requestShape(),
        notices: this.notices,
      })
    } catch (error) {
      reply = `/${command.name} failed: ${errorMessage(error)}`
    }
    const event = session.append({ type: 'assistant/message', data: { turn, step: 1, content: reply } })
    this.send(messageChunk(reply, session.messageIdAt(event.seq)), event.seq)
    session.append({ type: 'step/end', data: { turn, step: 1 } })
    return { reason: this.signal.aborted ? 'cancelled' : 'completed' }
  }

  /** One step; undefined when the loop goes on to the next. */
  private async runStep(step: number): Promise<TurnEnding | undefined> {
    const { session, turn, options } = this
    // Awaited only when it waits: a step with nothing to wait for starts in the same tick.
    const before = options.beforeStep?.((update, seq) => this.send(update, seq), this.signal)
    if (before) {
      await before
      if (this.signal.aborted) return { reason: 'cancelled' }
    }
    const tools = options.tools.forSession(this.request.subagent?.toolScope ?? session.id)
    const shape = this.requestShape()
    // Awaited only when it compacts or must count tokens, as `beforeStep` above.
    const auto = this.compactor().beforeRequest(shape)
    if (auto && (await auto)?.status === 'cancelled') return { reason: 'cancelled' }
    session.append({ type: 'step/start', data: { turn, step } })
    // Once a chunk went out tagged with the log's next seq, and until the message is recorded at
    // it, no other change is appended (it waits, see StreamingSteps).
    let endStreaming: (() => void) | undefined
    const claim = () => {
      endStreaming ??= options.streaming?.begin(session.id)
    }
    let streamed: StreamedStep
    try {
      streamed = await this.streamStep(shape, claim)
      this.recordAssistant(step, streamed, shape.model)
    } finally {
      endStreaming?.()
    }
    const calls = streamed.calls.map((call) => this.calls.record(step, call, tools))
    const ending = this.endingOf(streamed)
    if (ending === undefined) {
      await this.calls.executeAll(step, calls, tools, options.permissions)
    } else {
      const output = ending.reason === 'cancelled' ? CANCELLED_TOOL_OUTPUT : notRunOutput(ending)
      for (const call of calls) this.calls.recordResult(step, call.event, { output, isError: true })
    }
    session.append({ type: 'step/end', data: { turn, step } })
    if (ending) return ending
    if (this.signal.aborted) return { reason: 'cancelled' }
    return calls.length > 0 ? undefined : { reason: 'completed' }
  }

  /** Streams the step's model request (compacting and asking once more when it is too long). */
  private async streamStep(
    shape: RequestShape & { readonly model: string },
    claim: () => void,
  ): Promise<StreamedStep> {
    const { session, options } = this
    const stream = () =>
      streamModelStep(
        session,
        options.provider,
        shape.tools,
        this.signal,
        (update, seq) => {
          claim()
          this.send(update, seq)
        },
        {
          ...(shape.model !== undefined && { model: shape.model }),
          ...(shape.thoughtLevel !== undefined && { thoughtLevel: shape.thoughtLevel }),
          ...(shape.system !== undefined && { system: shape.system }),
          notify: (notice) => this.notices.say(notice, session.lastSeq, 'log'),
        },
      )
    let streamed = await stream()
    if (
      streamed.contextLength &&
      streamed.text === '' &&
      streamed.thought === '' &&
      streamed.calls.length === 0
    ) {
      // The server refused the request as too long: compact, then ask once more.
      const compacted = await this.compactor().run('context-length', shape)
      if (compacted.status === 'completed') streamed = await stream()
      else if (compacted.status === 'cancelled') streamed = { ...streamed, aborted: true }
      else {
        const why = compacted.status === 'nothing' ? compacted.reason : compacted.error
        streamed = {
          ...streamed,
          error: `${streamed.error} Compacting the conversation did not help: ${why}.`,
        }
      }
    }
    return streamed
  }

  /**
   * What the turn's next model request offers: the tools the mode (and the client) allows, the
   * session's model, and the system prompt for them.
   */
  private requestShape(): RequestShape & { readonly model: string } {
    const { options, session } = this
    const mode = options.permissions.mode()
    const config = effectiveConfig(options.configSpecs, session.config)
    const tools = options.tools
      .forSession(this.request.subagent?.toolScope ?? session.id)
      .specs((tool) => offeredIn(mode, tool) && (tool.offeredTo?.(this.request.client) ?? true))
    return {
      tools,
      model: config.model,
      ...(config.thoughtLevel !== undefined && { thoughtLevel: config.thoughtLevel }),
      ...(options.systemPrompt && { system: options.systemPrompt(session, mode, tools) }),
    }
  }

  private compactor(): TurnCompaction {
    if (!this.compaction) throw new Error('the turn has not started')
    return this.compaction
  }

  /** Undefined when the step's tool calls are to run; else how the turn ends after this step. */
  private endingOf(streamed: StreamedStep): TurnEnding | undefined {
    if (streamed.aborted) return { reason: 'cancelled' }
    if (streamed.error !== undefined) return { reason: 'error', message: streamed.error }
    if (streamed.stop === 'max_tokens') return { reason: 'max-tokens' }
    if (streamed.stop === 'refusal') return { reason: 'refusal' }
    return streamed.calls.length > 0 ? undefined : { reason: 'completed' }
  }

  /**
   * Records the step's `assistant/message`, with its cost when the model has a price; a step that
   * reported usage is followed by the session's `usage_update` (when the model's window is known).
   */
  private recordAssistant(step: number, streamed: StreamedStep, model: string): void {
    const { text, thought, usage } = streamed
    if (text === '' && thought === '' && usage === undefined) return
    const { provider } = this.options
    const pricing = usage === undefined ? undefined : provider.pricing?.(model)
    const expected = this.session.lastSeq + 1
    const event = this.session.append({
      type: 'assistant/message',
      data: {
        turn: this.turn,
        step,
        content: text,
        ...(thought !== '' && { thought }),
        ...(usage !== undefined && { usage }),
        ...(usage !== undefined && pricing !== undefined && { cost: stepCost(usage, pricing) }),
      },
    })
    if (event.seq !== expected) {
      throw new Error(`assistant/message got seq ${event.seq}, but its chunks were streamed as ${expected}`)
    }
    if (usage === undefined) return
    const update = usageUpdateOf(this.session, windowOf(provider, model, streamed.contextWindow), pricing)
    if (update) this.send(update, event.seq)
  }

  private send(update: SessionUpdate, seq: number): void {
    try {
      this.request.sendUpdate(update, seq)
    } catch (error) {
      this.options.onSendError?.(error)
    }
  }
}

function notRunOutput(ending: TurnEnding): string {
  if (ending.reason === 'error') return `Not run: the model failed (${ending.message ?? 'error'}).`
  return `Not run: the model stopped (${ending.reason}) while making this call.`
}
