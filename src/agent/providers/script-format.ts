import { isObject } from '../../lib/is.js'
import type { JsonValue, TokenUsage } from '../../session/index.js'
import { AgentError, AgentErrorCode } from '../errors.js'
import type { ModelStopReason } from '../types.js'

/**
 * A model script for the `script` provider (tests and demos), as JSON:
 * `{ "turns": [ turn, ... ] }` or just `[ turn, ... ]`. A turn is a list of steps, a step a list
 * of items played in order:
 * - `{ "text": "..." }`: an answer chunk; `{ "thought": "..." }`: a reasoning chunk;
 * - `{ "toolCall": { "name", "input", "result"?, "isError"?, "id"? } }`: a tool call. With `result`
 *   the script answers the call itself (no real tool runs); without it the agent's tool runs;
 * - `{ "delayMs": n }`: waits, ending early when the turn is cancelled;
 * - `{ "usage": { "inputTokens", "outputTokens", "cachedInputTokens"?, "reasoningTokens"? },
 *   "contextWindow"? }`: reports token usage (as a server's final usage chunk does);
 * - `{ "stop": "end_turn" | "tool_calls" | "max_tokens" | "refusal" }`: ends the step so;
 * - `{ "error": "message" }`: the provider fails with this message.
 *
 * Turn `i` (0-based) answers a request holding `i + 1` user messages, so a fork's child replays the
 * turns after its prefix. Step `j` is played when the request holds `j` assistant messages after
 * the last user message (every step but the last calls tools, so each leaves one).
 */
export interface ModelScript {
  readonly turns: readonly ScriptTurn[]
}

export type ScriptTurn = readonly ScriptStep[]
export type ScriptStep = readonly ScriptItem[]

export type ScriptItem =
  | { readonly text: string }
  | { readonly thought: string }
  | { readonly toolCall: ScriptToolCall }
  | { readonly delayMs: number }
  | { readonly usage: TokenUsage; readonly contextWindow?: number }
  | { readonly stop: ModelStopReason }
  | { readonly error: string }

export interface ScriptToolCall {
  readonly name: string
  readonly input: JsonValue
  /** The call's result, answered by the script. Absent: the agent's real tool runs. */
  readonly result?: JsonValue
  readonly isError?: boolean
  /** The call id. Default: `call_<turn>_<step>_<n>` (1-based). */
  readonly id?: string
}

const STOP_REASONS = new Set(['end_turn', 'tool_calls', 'max_tokens', 'refusal'])

/** Checks a parsed script; throws `INVALID_SCRIPT` naming the first bad item's location. */
export function parseModelScript(value: unknown, source = 'script'): ModelScript {
  const turns = Array.isArray(value) ? value : isObject(value) ? value.turns : undefined
  if (!Array.isArray(turns)) fail(source, '', 'expected { "turns": [...] } or an array of turns')
  turns.forEach((turn, t) => {
    if (!Array.isArray(turn)) fail(source, `turns[${t}]`, 'a turn must be an array of steps')
    turn.forEach((step, s) => {
      if (!Array.isArray(step)) fail(source, `turns[${t}][${s}]`, 'a step must be an array of items')
      step.forEach((item, i) => {
        const problem = itemProblem(item)
        if (problem) fail(source, `turns[${t}][${s}][${i}]`, problem)
      })
    })
  })
  return { turns: turns as ScriptTurn[] }
}

function itemProblem(item: unknown): string | undefined {
  if (!isObject(item)) return 'an item must be an object'
  if ('text' in item) return typeof item.text === 'string' ? undefined : 'text must be a string'
  if ('thought' in item) return typeof item.thought === 'string' ? undefined : 'thought must be a string'
  if ('delayMs' in item) {
    const ms = item.delayMs
    return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? undefined : 'delayMs must be >= 0'
  }
  if ('stop' in item) return STOP_REASONS.has(item.stop as string) ? undefined : 'unknown stop reason'
  if ('error' in item) return typeof item.error === 'string' ? undefined : 'error must be a string'
  if ('usage' in item) {
    const usage = item.usage
    const ok = isObject(usage) && isCount(usage.inputTokens) && isCount(usage.outputTokens)
    if (!ok) return 'usage needs inputTokens and outputTokens (numbers >= 0)'
    for (const key of ['cachedInputTokens', 'reasoningTokens']) {
      if (usage[key] !== undefined && !isCount(usage[key])) return `usage.${key} must be a number >= 0`
    }
    return item.contextWindow === undefined || isCount(item.contextWindow) ? undefined : 'bad contextWindow'
  }
  if ('toolCall' in item) {
    const call = item.toolCall
    if (!isObject(call) || typeof call.name !== 'string' || call.name === '') return 'toolCall needs a name'
    if (!('input' in call)) return 'toolCall needs an input'
    if (call.id !== undefined && (typeof call.id !== 'string' || call.id === '')) return 'bad toolCall.id'
    if (call.isError !== undefined && typeof call.isError !== 'boolean') return 'bad toolCall.isError'
    return undefined
  }
  return 'unknown item: expected text, thought, toolCall, delayMs, usage, stop or error'
}

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0
}

function fail(source: string, where: string, problem: string): never {
  const at = where ? ` at ${where}` : ''
  throw new AgentError(AgentErrorCode.INVALID_SCRIPT, `${source}${at}: ${problem}`, { source, where })
}
