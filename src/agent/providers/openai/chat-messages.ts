import type { ContentBlock, JsonValue, ModelMessage } from '../../../session/index.js'
import { contentToText } from '../../shared/content-text.js'
import type { ToolSpec } from '../../types.js'

/** A chat-completions tool call as the assistant message carries it. */
export interface ChatToolCall {
  readonly id: string
  readonly type: 'function'
  readonly function: { readonly name: string; readonly arguments: string }
}

/** The chat-completions message shapes this provider sends. */
export type ChatMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string | readonly ChatContentPart[] }
  | {
      readonly role: 'assistant'
      readonly content: string | null
      readonly tool_calls?: ChatToolCall[]
      /** The step's thought, sent back only inside a turn that called tools (DeepSeek requires it). */
      readonly reasoning_content?: string
    }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string }

/** A part of a multi-part user message (only used when the prompt holds images). */
export type ChatContentPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image_url'; readonly image_url: { readonly url: string } }

export interface ChatTool {
  readonly type: 'function'
  readonly function: { readonly name: string; readonly description: string; readonly parameters: JsonValue }
}

/**
 * A compaction's summary as chat completions carry it: a user message (the conversation's first),
 * which every compatible server accepts where a second system message is refused by some chat
 * templates.
 */
export function summaryMessageText(summary: string): string {
  return `The conversation so far was compacted into this summary (earlier turns are no longer in your context):\n\n${summary}`
}

/** Prefix of a tool message whose result was an error (chat completions has no error flag). */
export const TOOL_ERROR_PREFIX = 'Error: '

/**
 * Converts the provider-neutral history to chat-completions messages:
 * - `system` stays a system message (context notes may stand between turns);
 * - `user` content blocks become one string ({@link contentToText}: resource links as mentions,
 *   embedded text resources inline, what a text model cannot take as a note); a plain string is
 *   what every compatible server accepts. With `options.images` (the model takes images), a
 *   message holding images becomes text and `image_url` parts instead;
 * - `assistant` keeps its text and its tool calls (`arguments` is the input as a JSON string);
 *   its `thought` goes back as `reasoning_content` only when the turn it belongs to (the messages
 *   between two user messages) called a tool: DeepSeek's thinking mode answers 400 when such a
 *   turn's reasoning is missing from later requests, and ignores it elsewhere, so elsewhere it is
 *   left out (servers that never stream reasoning never get the field). An assistant message left
 *   with neither text nor calls is omitted; with calls and no text, `content` is `null`;
 * - `tool` becomes `{role:'tool', tool_call_id, content}`, the output as text (strings as they are,
 *   other JSON serialized), prefixed with {@link TOOL_ERROR_PREFIX} when it is an error. With
 *   `options.images`, the images results hold (an MCP tool's) follow the step's tool messages as
 *   one user message of `image_url` parts, since a tool message can carry text only.
 */
export function toChatMessages(
  messages: readonly ModelMessage[],
  options: { readonly images?: boolean } = {},
): ChatMessage[] {
  const out: ChatMessage[] = []
  const inToolTurn = assistantsInToolTurns(messages)
  let images: ChatContentPart[] = []
  for (const [index, message] of messages.entries()) {
    if (message.role !== 'tool' && images.length > 0) {
      out.push({ role: 'user', content: images })
      images = []
    }
    switch (message.role) {
      case 'system':
        out.push({ role: 'system', content: message.content })
        break
      case 'summary':
        out.push({ role: 'user', content: summaryMessageText(message.content) })
        break
      case 'user':
        out.push({
          role: 'user',
          content: options.images ? userContent(message.content) : contentToText(message.content),
        })
        break
      case 'assistant': {
        if (message.content === '' && message.toolCalls.length === 0) break
        const reasoning =
          inToolTurn.has(index) && message.thought ? { reasoning_content: message.thought } : {}
        if (message.toolCalls.length === 0) {
          out.push({ role: 'assistant', content: message.content, ...reasoning })
          break
        }
        out.push({
          role: 'assistant',
          content: message.content === '' ? null : message.content,
          ...reasoning,
          tool_calls: message.toolCalls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: JSON.stringify(call.input) },
          })),
        })
        break
      }
      case 'tool': {
        const text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content)
        out.push({
          role: 'tool',
          tool_call_id: message.callId,
          content: message.isError ? `${TOOL_ERROR_PREFIX}${text}` : text,
        })
        if (options.images && message.images !== undefined && message.images.length > 0) {
          images.push({ type: 'text', text: `The images of tool call ${message.callId}:` })
          for (const image of message.images) images.push(imagePart(image))
        }
        break
      }
      default:
        break
    }
  }
  if (images.length > 0) out.push({ role: 'user', content: images })
  return out
}

function imagePart(block: { readonly mimeType: string; readonly data: string }): ChatContentPart {
  return { type: 'image_url', image_url: { url: `data:${block.mimeType};base64,${block.data}` } }
}

/**
 * A user message's content: one string ({@link contentToText}), or, when it holds images, parts in
 * order: the text around the images as text parts, each image as an `image_url` data URL.
 */
function userContent(blocks: readonly ContentBlock[]): string | ChatContentPart[] {
  if (!blocks.some((block) => block.type === 'image')) return contentToText(blocks)
  const parts: ChatContentPart[] = []
  let pending: ContentBlock[] = []
  const flush = () => {
    if (pending.length > 0) parts.push({ type: 'text', text: contentToText(pending) })
    pending = []
  }
  for (const block of blocks) {
    if (block.type !== 'image') {
      pending.push(block)
      continue
    }
    flush()
    parts.push(imagePart(block))
  }
  flush()
  return parts
}

/** Indexes of the assistant messages whose turn (the run between two user messages) called a tool. */
function assistantsInToolTurns(messages: readonly ModelMessage[]): Set<number> {
  const marked = new Set<number>()
  let turn: number[] = []
  let calledTool = false
  const close = () => {
    if (calledTool) for (const index of turn) marked.add(index)
    turn = []
    calledTool = false
  }
  for (const [index, message] of messages.entries()) {
    if (message.role === 'user') close()
    if (message.role !== 'assistant') continue
    turn.push(index)
    if (message.toolCalls.length > 0) calledTool = true
  }
  close()
  return marked
}

/** Tool specs as chat-completions `tools`; `undefined` when there are none (the field is omitted). */
export function toChatTools(tools: readonly ToolSpec[]): ChatTool[] | undefined {
  if (tools.length === 0) return undefined
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  }))
}
