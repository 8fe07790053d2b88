import { readFileSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'
import type { ModelMessage } from '../../session/index.js'
import { AgentError, AgentErrorCode } from '../errors.js'
import type { ModelChunk, ModelProvider, ModelRequest } from '../types.js'
import { deterministicSummary, summaryPieces } from './deterministic-summary.js'
import { type ModelScript, parseModelScript, type ScriptItem } from './script-format.js'

/**
 * A provider that plays a {@link ModelScript}: the turn is chosen by the number of user messages in
 * the request, the step by the assistant messages since the last one. Delays end early on abort.
 * A request the script has no step for fails the turn with an error naming the missing turn/step.
 */
export function createScriptProvider(script: ModelScript): ModelProvider {
  return {
    name: 'script',
    promptCapabilities: { image: false, audio: false, embeddedContext: true },
    stream: (request, signal) => playStep(script, request, signal),
  }
}

/** Reads and checks a script file (JSON). Throws `INVALID_SCRIPT` when it is unreadable or malformed. */
export function loadScriptFile(file: string): ModelScript {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new AgentError(
      AgentErrorCode.INVALID_SCRIPT,
      `cannot read script ${file}: ${(error as Error).message}`,
      {
        source: file,
      },
    )
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new AgentError(
      AgentErrorCode.INVALID_SCRIPT,
      `script ${file} is not JSON: ${(error as Error).message}`,
      {
        source: file,
      },
    )
  }
  return parseModelScript(value, file)
}

/**
 * Where a request stands in a script: 0-based turn and step. A compaction's summary counts as the
 * user messages it stands for, so a script's turns keep their places across a compaction. A
 * summary request (`purpose: 'summary'`) plays no turn: it gets the deterministic summary.
 */
export function scriptPosition(messages: readonly ModelMessage[]): { turn: number; step: number } {
  let users = 0
  let assistantsSinceUser = 0
  for (const message of messages) {
    if (message.role === 'summary') {
      users = message.userMessages
      assistantsSinceUser = 0
    } else if (message.role === 'user') {
      users++
      assistantsSinceUser = 0
    } else if (message.role === 'assistant') {
      assistantsSinceUser++
    }
  }
  return { turn: users - 1, step: assistantsSinceUser }
}

async function* playStep(
  script: ModelScript,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncGenerator<ModelChunk> {
  if (request.purpose === 'summary') {
    for (const text of summaryPieces(deterministicSummary(request.messages))) {
      if (signal.aborted) return
      yield { type: 'text', text }
    }
    return
  }
  const { turn, step } = scriptPosition(request.messages)
  const items = script.turns[turn]?.[step]
  if (items === undefined) throw new Error(`the script has no turn ${turn + 1} step ${step + 1}`)
  let calls = 0
  for (const item of items) {
    if (signal.aborted) return
    const chunk = await playItem(item, signal, () => `call_${turn + 1}_${step + 1}_${++calls}`)
    if (chunk === undefined) continue
    yield chunk
    if (chunk.type === 'stop') return
  }
}

async function playItem(
  item: ScriptItem,
  signal: AbortSignal,
  nextCallId: () => string,
): Promise<ModelChunk | undefined> {
  if ('text' in item) return { type: 'text', text: item.text }
  if ('thought' in item) return { type: 'thought', text: item.thought }
  if ('delayMs' in item) {
    await delay(item.delayMs, undefined, { signal })
    return undefined
  }
  if ('usage' in item) {
    const { inputTokens, outputTokens, cachedInputTokens, reasoningTokens } = item.usage
    return {
      type: 'usage',
      usage: {
        inputTokens,
        outputTokens,
        ...(cachedInputTokens !== undefined && { cachedInputTokens }),
        ...(reasoningTokens !== undefined && { reasoningTokens }),
      },
      ...(item.contextWindow !== undefined && { contextWindow: item.contextWindow }),
    }
  }
  if ('stop' in item) return { type: 'stop', reason: item.stop }
  if ('error' in item) throw new Error(item.error)
  const call = item.toolCall
  const callId = call.id ?? nextCallId()
  return {
    type: 'tool_call',
    callId,
    name: call.name,
    input: call.input,
    ...(call.result !== undefined && {
      result: { output: call.result, ...(call.isError === true && { isError: true }) },
    }),
  }
}
