import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base'
import { SUMMARY_INSTRUCTION } from '../src/agent/compaction/summary-request.js'
import { PrefixCache } from './prefix-cache.js'

/**
 * A fake chat-completions model with a small context window (shared by the compaction tests and
 * bench): it counts each request's prompt tokens its own way, with a different tokenizer than
 * dsh-acp's estimate (cl100k_base) over a ChatML-like rendering of the messages and tools, refuses
 * a request above its window the way OpenAI does (HTTP 400, `context_length_exceeded`), answers a
 * summary request (its last user message is dsh-acp's summarizing instruction) with a summary, and
 * anything else with a short text. Usage reports its own count and, from a {@link PrefixCache},
 * how much of the prompt a prefix cache would have held.
 */
export class SmallWindowModel {
  readonly cache = new PrefixCache()
  /** Per request: the prompt tokens counted, and whether it was a summary request. */
  readonly seen: {
    readonly promptTokens: number
    readonly summary: boolean
    readonly cachedShare: number
  }[] = []

  constructor(
    readonly window: number,
    private readonly answer: (userText: string, index: number) => string = (_, index) => `Answer ${index}.`,
  ) {}

  /** The reply to one request body: an error answer, or the SSE `data:` payloads of a stream. */
  reply(body: { readonly [key: string]: unknown } | undefined): SmallWindowReply {
    const promptTokens = countPromptTokens(body)
    const last = lastUserText(body)
    const summary = last.startsWith(SUMMARY_INSTRUCTION.slice(0, 40))
    const cached = this.cache.see(body)
    const cachedShare = cached.promptTokens === 0 ? 0 : cached.cachedTokens / cached.promptTokens
    this.seen.push({ promptTokens, summary, cachedShare })
    if (promptTokens > this.window) {
      return {
        status: 400,
        body: {
          error: {
            message: `This model's maximum context length is ${this.window} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`,
            type: 'invalid_request_error',
            param: 'messages',
            code: 'context_length_exceeded',
          },
        },
      }
    }
    const text = summary
      ? `Summary: the user sent ${userMessages(body) - 1} messages; the last said ${JSON.stringify(previousUserText(body).slice(0, 40))}.`
      : this.answer(last, this.seen.length - 1)
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: 8,
      total_tokens: promptTokens + 8,
      prompt_tokens_details: { cached_tokens: Math.floor(promptTokens * cachedShare) },
    }
    const chunk = (delta: object, finish: string | null) => ({
      id: 'chatcmpl-small',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'fake-model',
      choices: [{ index: 0, delta, finish_reason: finish }],
    })
    return {
      stream: [
        chunk({ role: 'assistant', content: '' }, null),
        chunk({ content: text }, null),
        chunk({}, 'stop'),
        {
          id: 'chatcmpl-small',
          object: 'chat.completion.chunk',
          created: 0,
          model: 'fake-model',
          choices: [],
          usage,
        },
        '[DONE]',
      ],
    }
  }
}

export type SmallWindowReply =
  | { readonly status: number; readonly body: unknown }
  | { readonly stream: readonly unknown[] }

type Message = { role?: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }

function messagesOf(body: { readonly [key: string]: unknown } | undefined): Message[] {
  return (Array.isArray(body?.messages) ? body.messages : []) as Message[]
}

/** The server's own count: cl100k_base over `<|im_start|>role\ncontent<|im_end|>` per message, plus the tools. */
export function countPromptTokens(body: { readonly [key: string]: unknown } | undefined): number {
  const parts = messagesOf(body).map(
    (m) =>
      `<|im_start|>${m.role ?? ''}\n${typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')}${m.tool_calls ? JSON.stringify(m.tool_calls) : ''}<|im_end|>\n`,
  )
  if (body?.tools !== undefined) parts.push(JSON.stringify(body.tools))
  return countTokens(parts.join(''), { allowedSpecial: 'all' })
}

function userTextsOf(body: { readonly [key: string]: unknown } | undefined): string[] {
  return messagesOf(body)
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : ''))
}

function lastUserText(body: { readonly [key: string]: unknown } | undefined): string {
  return userTextsOf(body).at(-1) ?? ''
}

function previousUserText(body: { readonly [key: string]: unknown } | undefined): string {
  return userTextsOf(body).at(-2) ?? ''
}

function userMessages(body: { readonly [key: string]: unknown } | undefined): number {
  return userTextsOf(body).length
}
