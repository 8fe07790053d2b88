import type { RequestShape, TurnCompaction } from '../../compaction/turn-compaction.js'
import { type LivePermissions, offeredIn } from '../../config/permissions.js'
import { type ConfigOptionSpec, effectiveConfig } from '../../config/session-config.js'
import type { NoticeChannel } from '../../notices/notice.js'
import type { ToolRegistry } from '../../tools/registry.js'
import type { ToolSpec } from '../../types.js'
import type { TurnEnding, TurnScope } from '../turn-scope.js'
import { type StreamedStep, streamModelStep } from './model-step.js'
import { stepCost, usageUpdateOf, windowOf } from './step-usage.js'

/** A model request's shape, with the session's model named. */
export type StepShape = RequestShape & { readonly model: string }

/** What decides the shape of a turn's model requests. */
export interface ShapeOptions {
  readonly tools: ToolRegistry
  /** The turn's permissions: the mode now decides which tools are offered. */
  readonly permissions: LivePermissions
  /** The session options: each model request reads the session's mode, model and effort anew. */
  readonly configSpecs: readonly ConfigOptionSpec[]
  /** The system prompt of one request (the session, its mode, the tools offered); absent: none. */
  readonly systemPrompt?: (session: TurnScope['session'], mode: string, tools: readonly ToolSpec[]) => string
}

/**
 * What the turn's next model request offers: the tools the mode (and the client) allows, the
 * session's model, and the system prompt for them.
 */
export function requestShape(scope: TurnScope, options: ShapeOptions): StepShape {
  const { session, request } = scope
  const mode = options.permissions.mode()
  const config = effectiveConfig(options.configSpecs, session.config)
  const tools = options.tools
    .forSession(request.subagent?.toolScope ?? session.id)
    .specs((tool) => offeredIn(mode, tool) && (tool.offeredTo?.(request.client) ?? true))
  return {
    tools,
    model: config.model,
    ...(config.thoughtLevel !== undefined && { thoughtLevel: config.thoughtLevel }),
    ...(options.systemPrompt && { system: options.systemPrompt(session, mode, tools) }),
  }
}

/** What one step's stream needs besides the turn's scope and the request's shape. */
export interface StepStream {
  readonly shape: StepShape
  /** Told before the first chunk of the step goes out (see `StreamingSteps`). */
  readonly claim: () => void
  readonly notices: NoticeChannel
  readonly compaction: TurnCompaction
}

/** Streams the step's model request (compacting and asking once more when it is too long). */
export async function streamStep(scope: TurnScope, { shape, claim, notices, compaction }: StepStream) {
  const { session } = scope
  const stream = () =>
    streamModelStep(scope, {
      tools: shape.tools,
      send: (update, seq) => {
        claim()
        scope.send(update, seq)
      },
      choice: {
        ...(shape.model !== undefined && { model: shape.model }),
        ...(shape.thoughtLevel !== undefined && { thoughtLevel: shape.thoughtLevel }),
        ...(shape.system !== undefined && { system: shape.system }),
        notify: (notice) => notices.say(notice, session.lastSeq, 'log'),
      },
    })
  const streamed = await stream()
  if (!refusedAsTooLong(streamed)) return streamed
  // The server refused the request as too long: compact, then ask once more.
  const compacted = await compaction.run('context-length', shape)
  if (compacted.status === 'completed') return stream()
  if (compacted.status === 'cancelled') return { ...streamed, aborted: true }
  const why = compacted.status === 'nothing' ? compacted.reason : compacted.error
  return { ...streamed, error: `${streamed.error} Compacting the conversation did not help: ${why}.` }
}

function refusedAsTooLong(streamed: StreamedStep): boolean {
  return (
    streamed.contextLength === true &&
    streamed.text === '' &&
    streamed.thought === '' &&
    streamed.calls.length === 0
  )
}

/** Undefined when the step's tool calls are to run; else how the turn ends after this step. */
export function endingOf(streamed: StreamedStep): TurnEnding | undefined {
  if (streamed.aborted) return { reason: 'cancelled' }
  if (streamed.error !== undefined) return { reason: 'error', message: streamed.error }
  if (streamed.stop === 'max_tokens') return { reason: 'max-tokens' }
  if (streamed.stop === 'refusal') return { reason: 'refusal' }
  return streamed.calls.length > 0 ? undefined : { reason: 'completed' }
}

/** The output recorded for a call the model made in a step that ended the turn. */
export function notRunOutput(ending: TurnEnding): string {
  if (ending.reason === 'error') return `Not run: the model failed (${ending.message ?? 'error'}).`
  return `Not run: the model stopped (${ending.reason}) while making this call.`
}

/**
 * Records the step's `assistant/message`, with its cost when the model has a price; a step that
 * reported usage is followed by the session's `usage_update` (when the model's window is known).
 */
export function recordAssistant(scope: TurnScope, step: number, streamed: StreamedStep, model: string): void {
  const { text, thought, usage } = streamed
  if (text === '' && thought === '' && usage === undefined) return
  const { provider, session } = scope
  const pricing = usage === undefined ? undefined : provider.pricing?.(model)
  const expected = session.lastSeq + 1
  const event = session.append({
    type: 'assistant/message',
    data: {
      turn: scope.turn,
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
  const update = usageUpdateOf(session, windowOf(provider, model, streamed.contextWindow), pricing)
  if (update) scope.send(update, event.seq)
}
