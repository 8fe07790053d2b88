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
  type TurnCompaction,
  turnCompaction,
} from '../compaction/turn-compaction.js'
import { NoticeChannel } from '../notices/notice.js'
import type { ModelProvider, TurnRequest } from '../types.js'
import { parseCommand, type SlashCommand } from './commands/commands.js'
import type { StreamedStep } from './step/model-step.js'
import {
  endingOf,
  notRunOutput,
  recordAssistant,
  requestShape,
  type ShapeOptions,
  type StepShape,
  streamStep,
} from './step/turn-step.js'
import type { StreamingSteps } from './streaming-steps.js'
import { CANCELLED_TOOL_OUTPUT } from './tool-execution.js'
import { TurnCalls } from './turn-calls.js'
import type { TurnEnding, TurnHooks, TurnScope } from './turn-scope.js'

export { CANCELLED_TOOL_OUTPUT } from './tool-execution.js'

/** What one turn runs on and with. */
export interface TurnRunOptions extends ShapeOptions {
  readonly session: Session
  /** The protocol layer's request: the prompt, the client's bridge, a subagent's bounds. */
  readonly request: TurnRequest
  /** The turn's signal: aborting it cancels everything the turn does. */
  readonly signal: AbortSignal
  readonly provider: ModelProvider
  /** The store, for slash commands that fork. */
  readonly sessions: SessionStore
  /** Where a streaming step is marked, so that nothing is appended before its message. */
  readonly streaming?: StreamingSteps
  readonly maxSteps: number
  /** How many calls of `concurrent` tools (delegations) of one step run at once. */
  readonly maxConcurrent: number
  /** Where a failed `sendUpdate` is reported; it never stops the turn. */
  readonly onSendError?: (error: unknown) => void
  /** Where the file tools record their changes, for a rewind to restore (absent: nowhere). */
  readonly checkpoints?: FileCheckpoints
  /** The slash commands a prompt may invoke (when the request takes commands). */
  readonly commands: readonly SlashCommand[]
  /** When the conversation is compacted by itself (compaction/turn-compaction.ts). Default: never. */
  readonly compaction?: CompactionSettings
  /**
   * What the features do at the turn's points (see `AgentFeature.turn`): before each step, between
   * steps (the user's steers are recorded there), whether a step that would end the turn gets a
   * next one, and the turn's close once its last step decided. Absent: nothing.
   */
  readonly hooks?: TurnHooks
}

/**
 * Runs one turn's body on its session: appends `turn/start`, `user/message` and the steps (model,
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
  private readonly hooks: TurnHooks
  private compaction: TurnCompaction | undefined

  constructor(private readonly options: TurnRunOptions) {
    const { session, request, signal, provider, checkpoints } = options
    this.turn = session.lastTurn + 1
    this.hooks = options.hooks ?? {}
    this.scope = {
      session,
      turn: this.turn,
      request,
      signal,
      provider,
      send: (update, seq) => this.send(update, seq),
      ...(checkpoints && { checkpoints }),
    }
    this.notices = new NoticeChannel(this.scope.send)
    this.calls = new TurnCalls(this.scope, options.maxConcurrent)
  }

  async run(): Promise<TurnEnding> {
    const { session, turn, request } = this.scope
    const invoked =
      request.commands === true ? parseCommand(request.prompt, this.options.commands) : undefined
    // A command's turn is marked, so the model's history leaves it out (it is not conversation).
    const start = session.append({
      type: 'turn/start',
      data: { turn, ...(invoked && { command: invoked.command.name }) },
    })
    this.compaction = turnCompaction(this.scope, this.options.compaction ?? {}, start.seq, this.notices)
    const titleBefore = session.title
    const user = session.append({ type: 'user/message', data: { turn, content: request.prompt } })
    request.onUserMessage?.(session.messageIdAt(user.seq), user.seq)
    if (request.subagent) this.send(userMessage(session.messageIdAt(user.seq), request.prompt), user.seq)
    if (titleBefore === undefined && session.title !== undefined) {
      this.send(titleUpdate(session.title, user.time), user.seq)
    }
    try {
      if (invoked) return await this.runCommand(invoked.command, invoked.args, start.seq)
      return await this.runSteps()
    } finally {
      // Synchronously after the last step's decision: a steer is delivered or refused, never lost.
      this.hooks.close?.()
    }
  }

  private async runSteps(): Promise<TurnEnding> {
    const { hooks } = this
    const maxSteps = this.scope.request.subagent?.maxSteps ?? this.options.maxSteps
    for (let step = 1; step <= maxSteps; step++) {
      if (this.scope.signal.aborted) return { reason: 'cancelled' }
      if (step > 1) hooks.betweenSteps?.(this.scope)
      const ending = await this.runStep(step)
      if (!ending) continue
      // Something that came during the last step (a steer) is answered by one more step of this turn.
      if (ending.reason === 'completed' && hooks.wantsStep?.() === true && step < maxSteps) continue
      return ending
    }
    return { reason: 'max-turn-requests' }
  }

  /**
   * A slash command's turn: one step whose assistant message is the command's answer (a command
   * that throws answers with its failure); the model is not asked.
   */
  private async runCommand(command: SlashCommand, args: string, turnStart: number): Promise<TurnEnding> {
    const { session, turn } = this.scope
    session.append({ type: 'step/start', data: { turn, step: 1 } })
    let reply: string
    try {
      reply = await command.run({
        ...this.scope,
        sessions: this.options.sessions,
        args,
        turnStart,
        requestShape: () => requestShape(this.scope, this.options),
        notices: this.notices,
      })
    } catch (error) {
      reply = `/${command.name} failed: ${errorMessage(error)}`
    }
    const event = session.append({ type: 'assistant/message', data: { turn, step: 1, content: reply } })
    this.send(messageChunk(reply, session.messageIdAt(event.seq)), event.seq)
    session.append({ type: 'step/end', data: { turn, step: 1 } })
    return { reason: this.scope.signal.aborted ? 'cancelled' : 'completed' }
  }

  /** One step; undefined when the loop goes on to the next. */
  private async runStep(step: number): Promise<TurnEnding | undefined> {
    const { session, turn, signal, request } = this.scope
    // Awaited only when it waits: a step with nothing to wait for starts in the same tick.
    const before = this.hooks.beforeStep?.(this.scope.send, signal)
    if (before) {
      await before
      if (signal.aborted) return { reason: 'cancelled' }
    }
    const tools = this.options.tools.forSession(request.subagent?.toolScope ?? session.id)
    const shape = requestShape(this.scope, this.options)
    // Awaited only when it compacts or must count tokens, as `beforeStep` above.
    const auto = this.compactor().beforeRequest(shape)
    if (auto && (await auto)?.status === 'cancelled') return { reason: 'cancelled' }
    session.append({ type: 'step/start', data: { turn, step } })
    const streamed = await this.streamAndRecord(step, shape)
    const calls = streamed.calls.map((call) => this.calls.record(step, call, tools))
    const ending = endingOf(streamed)
    if (ending === undefined) {
      await this.calls.executeAll(step, calls, tools, this.options.permissions)
    } else {
      const output = ending.reason === 'cancelled' ? CANCELLED_TOOL_OUTPUT : notRunOutput(ending)
      for (const call of calls) this.calls.recordResult(step, call.event, { output, isError: true })
    }
    session.append({ type: 'step/end', data: { turn, step } })
    if (ending) return ending
    if (signal.aborted) return { reason: 'cancelled' }
    return calls.length > 0 ? undefined : { reason: 'completed' }
  }

  /**
   * Streams the step and records its `assistant/message`. Once a chunk went out tagged with the
   * log's next seq, and until the message is recorded at it, no other change is appended (it
   * waits, see StreamingSteps).
   */
  private async streamAndRecord(step: number, shape: StepShape): Promise<StreamedStep> {
    const { session } = this.scope
    let endStreaming: (() => void) | undefined
    const claim = () => {
      endStreaming ??= this.options.streaming?.begin(session.id)
    }
    try {
      const streamed = await streamStep(this.scope, {
        shape,
        claim,
        notices: this.notices,
        compaction: this.compactor(),
      })
      recordAssistant(this.scope, step, streamed, shape.model)
      return streamed
    } finally {
      endStreaming?.()
    }
  }

  private compactor(): TurnCompaction {
    if (!this.compaction) throw new Error('the turn has not started')
    return this.compaction
  }

  private send(update: SessionUpdate, seq: number): void {
    try {
      this.scope.request.sendUpdate(update, seq)
    } catch (error) {
      this.options.onSendError?.(error)
    }
  }
}
