import type { CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js'
import type { ContentBlock, ModelMessage } from '../../../session/index.js'

/** A server's sampling messages as the model's history (user and assistant turns, no tools). */
export type SamplingMessages = readonly ModelMessage[]

type McpSamplingMessage = CreateMessageRequest['params']['messages'][number]
type McpSamplingBlock = Extract<McpSamplingMessage['content'], { type: string }>

/** Longest excerpt of the server's request shown when the user is asked. */
const PREVIEW_LENGTH = 600

/**
 * The server's messages as model history: text, and images in user messages. Anything else (audio,
 * tool use and tool results, an image the assistant said) cannot be passed on: the reason is
 * returned and nothing is asked.
 */
export function samplingMessages(messages: readonly McpSamplingMessage[]): SamplingMessages | string {
  if (messages.length === 0) return 'the request has no messages'
  const out: ModelMessage[] = []
  for (const [index, message] of messages.entries()) {
    const blocks: readonly McpSamplingBlock[] = Array.isArray(message.content)
      ? message.content
      : [message.content as McpSamplingBlock]
    if (message.role === 'assistant') {
      const texts: string[] = []
      for (const block of blocks) {
        if (block.type !== 'text')
          return `message ${index + 1}: the assistant's ${block.type} content cannot be passed on`
        texts.push(block.text)
      }
      out.push({ role: 'assistant', content: texts.join('\n'), toolCalls: [] })
      continue
    }
    const content: ContentBlock[] = []
    for (const block of blocks) {
      if (block.type === 'text') content.push({ type: 'text', text: block.text })
      else if (block.type === 'image')
        content.push({ type: 'image', data: block.data, mimeType: block.mimeType })
      else return `message ${index + 1}: ${block.type} content cannot be passed on`
    }
    out.push({ role: 'user', content })
  }
  return out
}

/** What the user reads when asked to let a server use the model: who asks, for what, how much. */
export function samplingPreview(server: string, params: CreateMessageRequest['params']): string {
  const last = params.messages.at(-1)
  const blocks = last === undefined ? [] : Array.isArray(last.content) ? last.content : [last.content]
  const text = blocks
    .map((block) => (block.type === 'text' ? block.text : `[${block.type}]`))
    .join(' ')
    .trim()
  const excerpt = text.length > PREVIEW_LENGTH ? `${text.slice(0, PREVIEW_LENGTH - 1)}…` : text
  const lines = [
    `The MCP server "${server}" asks to use the model for one completion of at most ${params.maxTokens} tokens (${params.messages.length} ${params.messages.length === 1 ? 'message' : 'messages'}).`,
    ...(params.systemPrompt !== undefined ? [`System prompt: ${params.systemPrompt}`] : []),
    ...(excerpt !== '' ? [`Last message: ${excerpt}`] : []),
  ]
  return lines.join('\n')
}
