import { isObject } from '../../../lib/is.js'
import type { JsonValue, TokenUsage } from '../../../session/index.js'
import type { ModelChunk, ModelStopReason } from '../../types.js'
import { errorText } from '../http/failures.js'

interface PendingToolCall {
  /** Absent until a fragment names it; a call never named gets a generated `call_<uuid>`. */
  id?: string
  name: string
  arguments: string
  /** Set when a server sent `arguments` as a JSON value rather than as a string. */
  value?: JsonValue
}

/** What `finish_reason` means for the turn loop; unknown values count as `end_turn`. */
const STOP_REASONS: { readonly [finishReason: string]: ModelStopReason } = {
  stop: 'end_turn',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  length: 'max_tokens',
  content_filter: 'refusal',
}

/**
 * Turns the parsed `data:` payloads of one streamed chat completion into {@link ModelChunk}s.
 *
 * - `delta.content` streams as `text`; `delta.reasoning_content` (DeepSeek, vLLM) and
 *   `delta.reasoning` (OpenRouter, Ollama) as `thought`; only the first choice is read.
 * - `delta.tool_calls` fragments accumulate by `index` (a fragment without one continues the call
 *   with the same `id`, else the latest call); complete calls are yielded by {@link finish}, in
 *   index order. Arguments that are empty become `{}`; arguments that are not valid JSON become
 *   `{ _raw: "<the text>" }` so the turn loop can answer the call with an error.
 * - `usage` (the final chunk when `stream_options.include_usage` is on) is yielded by
 *   {@link finish}, with `contextWindow` when configured.
 * - The stop reason is mapped from `finish_reason`; a step that produced tool calls stops with
 *   `tool_calls` even if the server said `stop` (Ollama and some llama.cpp builds do).
 * - A payload with an `error` member (sent mid-stream by vLLM and others) throws its message.
 */
export class CompletionAccumulator {
  readonly #calls = new Map<number, PendingToolCall>()
  #lastIndex: number | undefined
  #finishReason: string | undefined
  #usage: TokenUsage | undefined

  constructor(private readonly contextWindow?: number) {}

  /** True once a choice reported its `finish_reason`: the model finished this step. */
  get finished(): boolean {
    return this.#finishReason !== undefined
  }

  /** The chunks that `payload` streams at once (text and thoughts). */
  accept(payload: unknown): ModelChunk[] {
    if (!isObject(payload)) return []
    if (payload.error !== undefined && payload.error !== null) {
      throw new Error(`the server reported an error mid-stream: ${errorText(payload.error)}`)
    }
    if (isObject(payload.usage)) this.#usage = toTokenUsage(payload.usage)
    const choice = Array.isArray(payload.choices) ? payload.choices[0] : undefined
    if (!isObject(choice)) return []
    const chunks: ModelChunk[] = []
    const delta = isObject(choice.delta) ? choice.delta : {}
    for (const key of ['reasoning_content', 'reasoning']) {
      const thought = delta[key]
      if (typeof thought === 'string' && thought !== '') chunks.push({ type: 'thought', text: thought })
    }
    if (typeof delta.content === 'string' && delta.content !== '') {
      chunks.push({ type: 'text', text: delta.content })
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const fragment of delta.tool_calls) if (isObject(fragment)) this.#acceptToolCall(fragment)
    }
    if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') {
      this.#finishReason = choice.finish_reason
    }
    return chunks
  }

  /** The step's closing chunks: its tool calls, its usage (if reported), then its stop reason. */
  finish(): ModelChunk[] {
    const chunks: ModelChunk[] = []
    const indexes = [...this.#calls.keys()].sort((a, b) => a - b)
    for (const index of indexes) {
      const call = this.#calls.get(index) as PendingToolCall
      chunks.push({
        type: 'tool_call',
        // Web Crypto's (global): node:crypto would load with the first stage of the CLI (cli.ts).
        callId: call.id ?? `call_${crypto.randomUUID()}`,
        name: call.name,
        input: toolInput(call),
      })
    }
    if (this.#usage) {
      chunks.push({
        type: 'usage',
        usage: this.#usage,
        ...(this.contextWindow !== undefined && { contextWindow: this.contextWindow }),
      })
    }
    let reason = STOP_REASONS[this.#finishReason ?? 'stop'] ?? 'end_turn'
    if (reason === 'end_turn' && this.#calls.size > 0) reason = 'tool_calls'
    chunks.push({ type: 'stop', reason })
    return chunks
  }

  #acceptToolCall(fragment: { [key: string]: unknown }): void {
    const id = typeof fragment.id === 'string' && fragment.id !== '' ? fragment.id : undefined
    let index = typeof fragment.index === 'number' ? fragment.index : undefined
    if (index === undefined) {
      const byId = id === undefined ? undefined : [...this.#calls].find(([, call]) => call.id === id)?.[0]
      index = byId ?? (id === undefined ? this.#lastIndex : undefined) ?? this.#calls.size
    }
    this.#lastIndex = index
    let call = this.#calls.get(index)
    if (!call) {
      call = { name: '', arguments: '' }
      this.#calls.set(index, call)
    }
    if (call.id === undefined && id !== undefined) call.id = id
    const fn = isObject(fragment.function) ? fragment.function : {}
    if (typeof fn.name === 'string') call.name += fn.name
    if (typeof fn.arguments === 'string') call.arguments += fn.arguments
    else if (fn.arguments !== undefined && fn.arguments !== null) call.value = fn.arguments as JsonValue
  }
}

function toolInput(call: PendingToolCall): JsonValue {
  if (call.value !== undefined) return call.value
  if (call.arguments.trim() === '') return {}
  try {
    return JSON.parse(call.arguments) as JsonValue
  } catch {
    return { _raw: call.arguments }
  }
}

function toTokenUsage(usage: { [key: string]: unknown }): TokenUsage {
  const promptDetails = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {}
  const completionDetails = isObject(usage.completion_tokens_details) ? usage.completion_tokens_details : {}
  const cached = count(promptDetails.cached_tokens) ?? count(usage.prompt_cache_hit_tokens)
  const reasoning = count(completionDetails.reasoning_tokens)
  return {
    inputTokens: count(usage.prompt_tokens) ?? 0,
    outputTokens: count(usage.completion_tokens) ?? 0,
    ...(cached !== undefined && { cachedInputTokens: cached }),
    ...(reasoning !== undefined && { reasoningTokens: reasoning }),
  }
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined
}
