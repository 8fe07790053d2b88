import { abortable } from '../../../lib/abort.js'
import { assertNever } from '../../../lib/assert-never.js'
import { errorMessage } from '../../../lib/error-message.js'
import {
  HistoryProjector,
  type JsonValue,
  messageChunk,
  type Session,
  type SessionUpdate,
  type TokenUsage,
  thoughtChunk,
} from '../../../session/index.js'
import { ModelServerError } from '../../providers/http/model-server-error.js'
import type {
  ModelChunk,
  ModelRequest,
  ModelStopReason,
  ToolResult,
  ToolSpec,
  TurnRequest,
} from '../../types.js'
import type { TurnScope } from '../turn-scope.js'

/** Each live session's model history, folded forward step by step (dropped with the session). */
const projectors = new WeakMap<Session, HistoryProjector>()

/** The model's history of a live session now (its projector folds forward step by step). */
export function modelHistory(session: Session) {
  let projector = projectors.get(session)
  if (!projector) {
    projector = new HistoryProjector()
    projectors.set(session, projector)
  }
  return projector.project(session.events())
}

/** A tool call as the provider streamed it, before the loop records it. */
export interface StreamedCall {
  readonly callId: string
  readonly name: string
  readonly input: JsonValue
  readonly result?: ToolResult
}

/** Everything one model step streamed, and how the stream ended. */
export interface StreamedStep {
  text: string
  thought: string
  usage?: TokenUsage
  /** The context window the provider reported with the usage (the script's, `--context-window`). */
  contextWindow?: number
  calls: StreamedCall[]
  stop?: ModelStopReason
  /** The turn's signal aborted while streaming. */
  aborted: boolean
  /** The provider failed (not by abort): its message, as the user is to read it (said once, no prefix). */
  error?: string
  /** The failure said the request does not fit the model's context window (compacting may help). */
  contextLength?: boolean
}

/** One model request of a step: what it offers, where its deltas go, the session's choices. */
export interface StepRequest {
  readonly tools: readonly ToolSpec[]
  readonly send: (update: Parameters<TurnRequest['sendUpdate']>[0], seq: number) => void
  /** The session's model and reasoning effort, the system prompt, and where the provider's notices (retries) go. */
  readonly choice?: Pick<ModelRequest, 'model' | 'thoughtLevel' | 'notify' | 'system'>
}

/**
 * Streams one step from the scope's provider, forwarding text and thought deltas live through
 * `send`, tagged with the seq the step's `assistant/message` will get (its usage is reported once
 * that is recorded, see `TurnRun`). Never throws: an abort or a provider failure is reported in the
 * result, together with everything streamed before it. Stops at once when the scope's signal
 * aborts, even if the provider ignores its signal.
 */
export async function streamModelStep(
  { session, provider, signal }: Pick<TurnScope, 'session' | 'provider' | 'signal'>,
  { tools, send, choice = {} }: StepRequest,
): Promise<StreamedStep> {
  const seq = session.lastSeq + 1
  const messageId = session.messageIdAt(seq)
  const step: StreamedStep = { text: '', thought: '', calls: [], aborted: false }
  try {
    const modelRequest = {
      sessionId: session.id,
      cwd: session.cwd,
      messages: modelHistory(session),
      tools,
      ...(choice.model !== undefined && { model: choice.model }),
      ...(choice.thoughtLevel !== undefined && { thoughtLevel: choice.thoughtLevel }),
      ...(choice.system !== undefined && { system: choice.system }),
      ...(choice.notify !== undefined && { notify: choice.notify }),
    }
    for await (const chunk of abortable(provider.stream(modelRequest, signal), signal)) {
      takeChunk(step, chunk, (update) => send(update, seq), messageId)
    }
    if (signal.aborted) step.aborted = true
  } catch (error) {
    if (signal.aborted) step.aborted = true
    else {
      step.error = errorMessage(error)
      if (error instanceof ModelServerError && error.contextLength) step.contextLength = true
    }
  }
  return step
}

/** Adds one streamed chunk to `step`; text and thought deltas go out at once through `show`. */
function takeChunk(
  step: StreamedStep,
  chunk: ModelChunk,
  show: (update: SessionUpdate) => void,
  messageId: string,
): void {
  switch (chunk.type) {
    case 'text':
      if (chunk.text === '') return
      step.text += chunk.text
      show(messageChunk(chunk.text, messageId))
      return
    case 'thought':
      if (chunk.text === '') return
      step.thought += chunk.text
      show(thoughtChunk(chunk.text, messageId))
      return
    case 'tool_call':
      step.calls.push({
        callId: chunk.callId,
        name: chunk.name,
        input: chunk.input,
        ...(chunk.result !== undefined && { result: chunk.result }),
      })
      return
    case 'usage':
      step.usage = chunk.usage
      if (chunk.contextWindow !== undefined) step.contextWindow = chunk.contextWindow
      return
    case 'stop':
      step.stop = chunk.reason
      return
    default:
      assertNever(chunk, 'model chunk')
  }
}
