import type { ModelMessage } from '../../session/index.js'
import { contentToText } from '../shared/content-text.js'
import type { ToolSpec } from '../types.js'

/**
 * Token estimates of a model request, by a real BPE tokenizer (gpt-tokenizer's `o200k_base`),
 * erring high: servers count with their own tokenizers (DeepSeek, Qwen, Llama) and chat templates,
 * so the count is scaled by {@link SAFETY_FACTOR} and each message adds {@link PER_MESSAGE_TOKENS}.
 *
 * The tokenizer's tables take ~0.4 s to load, so they are imported on the first estimate that needs
 * them: a request whose UTF-8 size is under the limit asked about never needs them (no BPE token is
 * shorter than one byte, so bytes bound tokens from above, before the factor).
 */
export const SAFETY_FACTOR = 1.15
export const PER_MESSAGE_TOKENS = 6
/** The system prompt's and the tool list's framing. */
const REQUEST_OVERHEAD_TOKENS = 16

type Counter = (text: string) => number

let counter: Promise<Counter> | undefined

/** The BPE counter, loaded once, on first use. Special-token text is counted as plain text. */
export function tokenCounter(): Promise<Counter> {
  counter ??= import('gpt-tokenizer/encoding/o200k_base').then((tokenizer) => {
    const options = { disallowedSpecial: new Set<string>() }
    return (text: string) => tokenizer.countTokens(text, options)
  })
  return counter
}

/** What a request holds, as the tokens are counted: the system prompt, the messages, the tools. */
export interface RequestText {
  readonly system: string
  /**
   * The working directory the system prompt names: counted as one token per byte, rounded up to
   * whole 64-byte blocks (paths tokenize poorly, and so the estimate does not depend on the random
   * letters or the exact length of a temporary directory).
   */
  readonly cwd?: string
  readonly messages: readonly ModelMessage[]
  readonly tools: readonly ToolSpec[]
}

/** Each message's text as a server would get it (its roles' framing aside). */
export function messageText(message: ModelMessage): string {
  switch (message.role) {
    case 'system':
    case 'summary':
      return message.content
    case 'user':
      return contentToText(message.content)
    case 'assistant':
      return [
        message.content,
        message.thought ?? '',
        ...message.toolCalls.map((call) => `${call.name}${JSON.stringify(call.input)}${call.id}`),
      ].join('')
    case 'tool':
      return `${message.callId}${typeof message.content === 'string' ? message.content : JSON.stringify(message.content)}`
  }
}

function toolsText(tools: readonly ToolSpec[]): string {
  return tools.length === 0 ? '' : JSON.stringify(tools)
}

/** Cached per message object (history messages are kept between steps). */
const messageTokens = new WeakMap<ModelMessage, number>()
/**
 * Cached per text too: a compaction projects its prefix afresh (new message objects, same texts).
 * Bounded: the oldest entries go first.
 */
const textTokens = new Map<string, number>()
const MAX_CACHED_TEXTS = 20_000

function countText(count: Counter, text: string): number {
  const known = textTokens.get(text)
  if (known !== undefined) return known
  const n = count(text)
  if (textTokens.size >= MAX_CACHED_TEXTS) textTokens.delete(textTokens.keys().next().value as string)
  textTokens.set(text, n)
  return n
}

function pathTokens(path: string): number {
  return Math.ceil(utf8Bytes(path) / 64) * 64
}

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8')
}

/** A bound no estimate exceeds: the request's UTF-8 bytes (each token covers at least one), scaled. */
export function upperBound(request: RequestText): number {
  let bytes = utf8Bytes(request.system) + utf8Bytes(toolsText(request.tools))
  for (const message of request.messages) bytes += utf8Bytes(messageText(message))
  return scaled(bytes, request.messages.length)
}

function scaled(tokens: number, messages: number): number {
  return Math.ceil(tokens * SAFETY_FACTOR) + messages * PER_MESSAGE_TOKENS + REQUEST_OVERHEAD_TOKENS
}

/** The estimated prompt tokens of `request` (loads the tokenizer). */
export async function estimateTokens(request: RequestText): Promise<number> {
  const count = await tokenCounter()
  const pieces = request.cwd ? request.system.split(request.cwd) : [request.system]
  let tokens = count(toolsText(request.tools)) + (pieces.length - 1) * pathTokens(request.cwd ?? '')
  for (const piece of pieces) tokens += count(piece)
  for (const message of request.messages) {
    let n = messageTokens.get(message)
    if (n === undefined) {
      n = countText(count, messageText(message))
      messageTokens.set(message, n)
    }
    tokens += n
  }
  return scaled(tokens, request.messages.length)
}
