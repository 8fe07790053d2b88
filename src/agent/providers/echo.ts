import type { ModelMessage } from '../../session/index.js'
import { contentToText } from '../shared/content-text.js'
import type { ModelChunk, ModelProvider, ModelRequest } from '../types.js'
import { REASONING_EFFORTS } from './choices.js'
import { deterministicSummary, summaryPieces } from './deterministic-summary.js'
import { echoPlanMove } from './echo-plan.js'

/**
 * The built-in offline model. Deterministic: it answers with what it remembers of the conversation
 * it was given, the number of user messages and each one's text (embedded resources rendered as
 * text), so a forked child visibly remembers only its inherited prefix plus its own prompts. It
 * streams a short thought first, then the answer one line at a time. It calls no tool, but for a
 * prompt `plan: a; b; c` it works through that plan with `update_plan` (see `echoPlanMove`).
 *
 * It offers the model names given (`--model-name a,b`; default just `echo`) and the reasoning
 * efforts of chat completions, so editors can exercise both offline: they change nothing in the
 * answer, and the thought names them whenever they are not the defaults.
 */
export function createEchoProvider(modelNames: readonly string[] = []): ModelProvider {
  const models = (modelNames.length > 0 ? modelNames : ['echo']).map((id) => ({ id }))
  return {
    name: 'echo',
    promptCapabilities: { image: false, audio: false, embeddedContext: true },
    models,
    thoughtLevels: REASONING_EFFORTS,
    stream: (request, signal) => streamEcho(request, signal, models[0]?.id),
  }
}

async function* streamEcho(
  request: ModelRequest,
  signal: AbortSignal,
  defaultModel: string | undefined,
): AsyncGenerator<ModelChunk> {
  if (request.purpose === 'summary') {
    for (const piece of summaryPieces(deterministicSummary(request.messages))) {
      if (signal.aborted) return
      await Promise.resolve()
      yield { type: 'text', text: piece }
    }
    yield { type: 'stop', reason: 'end_turn' }
    return
  }
  const planMove = echoPlanMove(request.messages, request.tools)
  if (planMove) {
    yield* planMove
    return
  }
  const remembered = userTexts(request.messages)
  const summarized = request.messages.find((m) => m.role === 'summary')?.userMessages
  const choices = [
    ...(request.model !== undefined && request.model !== defaultModel ? [`model ${request.model}`] : []),
    ...(request.thoughtLevel !== undefined && request.thoughtLevel !== 'default'
      ? [`reasoning effort ${request.thoughtLevel}`]
      : []),
  ]
  yield {
    type: 'thought',
    text: `I count ${remembered.length} user ${plural(remembered.length)} in my context${choices.length > 0 ? ` (${choices.join(', ')})` : ''}.`,
  }
  for (const piece of echoAnswerPieces(remembered, summarized)) {
    if (signal.aborted) return
    await Promise.resolve()
    yield { type: 'text', text: piece }
  }
  yield { type: 'stop', reason: 'end_turn' }
}

/** The texts of the user messages in a history, oldest first. */
export function userTexts(messages: readonly ModelMessage[]): string[] {
  return messages.filter((m) => m.role === 'user').map((m) => contentToText(m.content))
}

/**
 * The echo answer for these remembered messages, as the chunks it streams (joined: the answer);
 * `summarized`: the user messages a compaction's summary stands for, before these.
 */
export function echoAnswerPieces(remembered: readonly string[], summarized?: number): string[] {
  const since =
    summarized === undefined
      ? 'in this session'
      : `since the summary of ${summarized} earlier ${plural(summarized)}`
  const head = `I remember ${remembered.length} ${plural(remembered.length)} from you ${since}`
  if (remembered.length === 0) return [`${head}.`]
  return [`${head}:`, ...remembered.map((text, i) => `\n${i + 1}. ${JSON.stringify(text)}`)]
}

/** The whole echo answer for these remembered messages. */
export function echoAnswer(remembered: readonly string[]): string {
  return echoAnswerPieces(remembered).join('')
}

function plural(count: number): string {
  return count === 1 ? 'message' : 'messages'
}
