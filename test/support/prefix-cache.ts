import { PrefixCache } from '../../bench/prefix-cache.js'
import {
  chunk,
  type FakeReply,
  type FakeStreamStep,
  type RecordedRequest,
  usageChunk,
} from './fake-openai.js'

export { PrefixCache } from '../../bench/prefix-cache.js'

/** How the fake model answers: text, or tool calls (`arguments` as a JSON value). */
export type ModelMove =
  | { readonly text: string }
  | { readonly calls: readonly { readonly id: string; readonly name: string; readonly arguments: unknown }[] }

/**
 * A streamed completion for `move` whose final usage chunk reports `cachedTokens` the way the
 * named provider does: OpenAI in `prompt_tokens_details.cached_tokens`, DeepSeek in
 * `prompt_cache_hit_tokens` (with `prompt_cache_miss_tokens`).
 */
export function streamWithUsage(
  move: ModelMove,
  usage: { promptTokens: number; cachedTokens: number },
  dialect: 'openai' | 'deepseek',
): FakeReply {
  const steps: FakeStreamStep[] = [chunk({ role: 'assistant', content: '' })]
  if ('text' in move) steps.push(chunk({ content: move.text }), chunk({}, 'stop'))
  else {
    move.calls.forEach((call, index) => {
      steps.push(
        chunk({
          tool_calls: [
            {
              index,
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: JSON.stringify(call.arguments) },
            },
          ],
        }),
      )
    })
    steps.push(chunk({}, 'tool_calls'))
  }
  const extra =
    dialect === 'openai'
      ? { prompt_tokens_details: { cached_tokens: usage.cachedTokens } }
      : {
          prompt_cache_hit_tokens: usage.cachedTokens,
          prompt_cache_miss_tokens: usage.promptTokens - usage.cachedTokens,
        }
  steps.push(usageChunk(usage.promptTokens, 5, extra), { data: '[DONE]' })
  return { stream: steps }
}

/** The text of the last user message of a chat-completions body. */
export function lastUserText(body: RecordedRequest['body']): string {
  const messages = (Array.isArray(body?.messages) ? body.messages : []) as {
    role?: string
    content?: unknown
  }[]
  const user = messages.filter((m) => m.role === 'user').at(-1)
  return typeof user?.content === 'string' ? user.content : ''
}

/** How many assistant messages follow the last user message: the step of the turn being asked. */
export function stepOfTurn(body: RecordedRequest['body']): number {
  const messages = (Array.isArray(body?.messages) ? body.messages : []) as { role?: string }[]
  let count = 0
  for (let i = messages.length - 1; i >= 0 && messages[i]?.role !== 'user'; i--) {
    if (messages[i]?.role === 'assistant') count++
  }
  return count
}

/**
 * A fake model scripted by conversation: for the last user message's text, the moves of each step
 * of that turn. Usage comes from one {@link PrefixCache}, reported in `dialect`. A request the
 * table does not cover is answered 500 (a test fails loudly). `hold` can delay or replace a reply.
 */
export function conversationModel(
  table: Readonly<Record<string, readonly ModelMove[]>>,
  options: {
    readonly dialect?: (userText: string) => 'openai' | 'deepseek'
    readonly hold?: (userText: string, reply: FakeReply) => FakeReply
    /** The body as the cache counts it (e.g. with machine-specific paths normalized); default as sent. */
    readonly countOn?: (body: RecordedRequest['body']) => RecordedRequest['body']
  } = {},
): { script: (request: RecordedRequest) => FakeReply; cache: PrefixCache } {
  const cache = new PrefixCache()
  const script = (request: RecordedRequest): FakeReply => {
    const user = lastUserText(request.body)
    const move = table[user]?.[stepOfTurn(request.body)]
    if (!move) return { status: 500, body: { error: { message: `fake: nothing scripted for ${user}` } } }
    const reply = streamWithUsage(
      move,
      cache.see(options.countOn ? options.countOn(request.body) : request.body),
      options.dialect?.(user) ?? 'openai',
    )
    return options.hold ? options.hold(user, reply) : reply
  }
  return { script, cache }
}
