import { isObject } from '../../../lib/is.js'
import type { JsonValue, TokenUsage } from '../../../session/index.js'
import type { ModelChunk, ModelStopReason } from '../../types.js'
import { errorText } from '../http/failures.js'
import { DEFAULT_STREAM_LIMITS, StreamLimitError, type StreamLimits } from '../http/stream-limits.js'

interface PendingToolCall {
  /** Absent until a fragment names it; a call never named gets a generated `call_<uuid>`. */
  id?: string
  /** Named by its first fragment with a non-empty name; see {@link CompletionAccumulator} for later ones. */
  name: string
  arguments: string
  /** Set when a server sent `arguments` as a JSON value rather than as a string. */
  value?: JsonValue
}

/** What each tool call counts against the answer limit besides its name and arguments. */
const CALL_CHARS = 100

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
 * - `delta.content` streams as `text`; `delta.reasoning_content` (DeepSeek, vLLM) or, when a
 *   delta has none, `delta.reasoning` (OpenRouter, Ollama) as `thought`: a server sending both
 *   for the same text shows it once. Only the first choice is read; chunks without choices
 *   (usage, Azure's content-filter results) stream nothing.
 * - `delta.tool_calls` fragments accumulate by `index` (a fragment without one, or with an `id`
 *   other than its index's call's, continues the call with the same `id`, else the latest call
 *   when it has no `id`, else starts one). A call's `id` is set by the first fragment carrying a
 *   non-empty one; its `name` too, and a later name is a repeat, ignored, when it equals the name
 *   so far or comes with an `id` (OpenRouter repeats `id` and `name` beside the arguments), else
 *   the next piece of a name streamed in pieces. Its `arguments` strings are concatenated. Complete calls are yielded by
 *   {@link finish}, in index order. Arguments that are empty become `{}`; arguments that are not
 *   valid JSON become `{ _raw: "<the text>" }` so the turn loop can answer the call with an error.
 * - `finish_reason: "error"` (OpenRouter) and a payload with an `error` member (vLLM and others,
 *   mid-stream) set {@link failure}: the step failed, whatever it streamed before.
 * - Past `limits.maxAnswerChars` (text, thoughts, tool names and arguments together, and 100
 *   more per tool call, so endless empty calls are bounded too) or
 *   `limits.maxToolArgumentChars` (one call's arguments) `accept` throws a
 *   {@link StreamLimitError} before returning any of the payload's chunks; work per payload is
 *   linear in its size.
 * - `usage` (the final chunk when `stream_options.include_usage` is on) is yielded by
 *   {@link finish}, with `contextWindow` when configured.
 * - The stop reason is mapped from `finish_reason`; a step that produced tool calls stops with
 *   `tool_calls` even if the server said `stop` (Ollama and some llama.cpp builds do).
 */
export class CompletionAccumulator {
  readonly #calls = new Map<number, PendingToolCall>()
  readonly #indexById = new Map<string, number>()
  #lastIndex: number | undefined
  #finishReason: string | undefined
  #usage: TokenUsage | undefined
  #failure: string | undefined
  #answerChars = 0

  constructor(
    private readonly contextWindow?: number,
    private readonly limits: StreamLimits = DEFAULT_STREAM_LIMITS,
  ) {}

  /** The server's own words when it reported that the step failed (`''` when it gave none). */
  get failure(): string | undefined {
    return this.#failure
  }

  /** True once a choice reported its `finish_reason`: the model finished this step. */
  get finished(): boolean {
    return this.#finishReason !== undefined
  }

  /** The chunks that `payload` streams at once (text and thoughts). */
  accept(payload: unknown): ModelChunk[] {
    if (!isObject(payload)) return []
    if (payload.error !== undefined && payload.error !== null) this.#failure = errorText(payload.error)
    if (isObject(payload.usage)) this.#usage = toTokenUsage(payload.usage)
    const choice = Array.isArray(payload.choices) ? payload.choices[0] : undefined
    if (!isObject(choice)) return []
    const chunks: ModelChunk[] = []
    const delta = isObject(choice.delta) ? choice.delta : {}
    const thought = nonEmpty(delta.reasoning_content) ?? nonEmpty(delta.reasoning)
    if (thought !== undefined) chunks.push({ type: 'thought', text: this.#counted(thought) })
    const text = nonEmpty(delta.content)
    if (text !== undefined) chunks.push({ type: 'text', text: this.#counted(text) })
    if (Array.isArray(delta.tool_calls)) {
      for (const fragment of delta.tool_calls) if (isObject(fragment)) this.#acceptToolCall(fragment)
    }
    if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') {
      this.#finishReason = choice.finish_reason
      if (choice.finish_reason === 'error') this.#failure ??= ''
    }
    return chunks
  }

  /** `text`, once counted against the answer limit. */
  #counted(text: string): string {
    this.#count(text.length)
    return text
  }

  #count(chars: number): void {
    this.#answerChars += chars
    if (this.#answerChars > this.limits.maxAnswerChars) {
      throw new StreamLimitError('answer', this.limits.maxAnswerChars)
    }
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
    const id = nonEmpty(fragment.id)
    let index = typeof fragment.index === 'number' ? fragment.index : undefined
    const atIndex = index === undefined ? undefined : this.#calls.get(index)
    // A new id at a taken index is another call (Gemini's endpoint gives parallel calls one index).
    if (id !== undefined && atIndex?.id !== undefined && atIndex.id !== id) index = undefined
    if (index === undefined) {
      const byId = id === undefined ? undefined : this.#indexById.get(id)
      index = byId ?? (id === undefined ? this.#lastIndex : undefined) ?? this.#freeIndex()
    }
    this.#lastIndex = index
    let call = this.#calls.get(index)
    if (!call) {
      this.#count(CALL_CHARS)
      call = { name: '', arguments: '' }
      this.#calls.set(index, call)
    }
    if (call.id === undefined && id !== undefined && !this.#indexById.has(id)) {
      call.id = id
      this.#indexById.set(id, index)
    }
    const fn = isObject(fragment.function) ? fragment.function : {}
    const name = nonEmpty(fn.name)
    if (name !== undefined && name !== call.name && (call.name === '' || id === undefined)) {
      call.name += this.#counted(name)
    }
    if (typeof fn.arguments === 'string') {
      if (call.arguments.length + fn.arguments.length > this.limits.maxToolArgumentChars) {
        throw new StreamLimitError('tool argument', this.limits.maxToolArgumentChars)
      }
      call.arguments += this.#counted(fn.arguments)
    } else if (fn.arguments !== undefined && fn.arguments !== null) {
      const value = fn.arguments as JsonValue
      const size = JSON.stringify(value)?.length ?? 0
      if (size > this.limits.maxToolArgumentChars) {
        throw new StreamLimitError('tool argument', this.limits.maxToolArgumentChars)
      }
      this.#count(size)
      call.value = value
    }
  }

  /** The smallest index no call uses yet (for a new call a server sent without an index). */
  #freeIndex(): number {
    let index = this.#calls.size
    while (this.#calls.has(index)) index++
    return index
  }
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
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
