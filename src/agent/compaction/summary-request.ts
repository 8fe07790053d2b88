import type { ModelMessage } from '../../session/index.js'
import { estimateTokens, type RequestText } from './token-estimate.js'

/**
 * The instruction a compaction's summary request ends with. The summary replaces the conversation
 * in the model's context, so it asks for what a coding agent needs to go on: the user's goals and
 * constraints, decisions and dead ends, files touched, commands and their results, open tasks.
 */
export const SUMMARY_INSTRUCTION = [
  'Stop here and write a summary of the conversation so far, for yourself: it will replace the conversation in your context, so it must hold everything you need to go on with the work. Do not call any tool; answer with the summary only, in plain text.',
  'Cover, in this order:',
  "1. The user's goals and requests (in their words where the wording matters), and every constraint or preference they stated.",
  '2. Decisions made and why; approaches tried that failed, and why.',
  '3. Files read, created or changed (their paths), what changed in each, and anything left half done.',
  '4. Commands run and their results that matter (errors, test outcomes).',
  '5. Open tasks, the next step, and questions waiting for the user.',
  'Be concise but complete: keep exact file paths, names, identifiers and error messages.',
].join('\n')

/** What stands in for a tool output left out of a summary request to make it fit. */
export const DROPPED_OUTPUT =
  '[This tool output was left out of the summary request to fit the context window.]'

/**
 * Tokens the automatic trigger keeps free for the summary instruction, over-counted (a token for
 * every 3 characters): a conversation just under the trigger fits its summary request whole.
 */
export const SUMMARY_INSTRUCTION_TOKENS = Math.ceil(SUMMARY_INSTRUCTION.length / 3)

/** The instruction, with the user's own (`/compact <instructions>`) after it. */
export function summaryInstruction(instructions?: string): string {
  const own = instructions?.trim()
  return own ? `${SUMMARY_INSTRUCTION}\n\nThe user adds: ${own}` : SUMMARY_INSTRUCTION
}

/** A summary request's messages after {@link fitSummaryRequest}, and what was left out to make them fit. */
export interface FittedRequest {
  readonly messages: readonly ModelMessage[]
  /** Tool outputs replaced by {@link DROPPED_OUTPUT}, oldest first. */
  readonly droppedToolOutputs: number
  /** Whole messages left out from the start, when dropping every tool output was not enough. */
  readonly droppedMessages: number
  readonly tokens: number
}

/**
 * `messages` (the conversation to summarize, then the instruction last) cut to fit `limit` tokens:
 * first the oldest tool outputs are replaced by {@link DROPPED_OUTPUT}, one at a time; if every one
 * is and it still does not fit, the oldest messages go, but never the first one when it is the
 * earlier summary or the user's first request (usually the goal), and no tool result is left
 * without its call. The instruction always stays. It may still not fit then: the caller sends it
 * anyway and the server decides.
 */
export async function fitSummaryRequest(
  messages: readonly ModelMessage[],
  frame: Omit<RequestText, 'messages'>,
  limit: number,
): Promise<FittedRequest> {
  const out = [...messages]
  const size = () => estimateTokens({ ...frame, messages: out })
  let tokens = await size()
  let droppedToolOutputs = 0
  for (let i = 0; i < out.length - 1 && tokens > limit; i++) {
    const message = out[i] as ModelMessage
    if (message.role !== 'tool' || message.content === DROPPED_OUTPUT) continue
    out[i] = {
      role: 'tool',
      callId: message.callId,
      name: message.name,
      content: DROPPED_OUTPUT,
      isError: message.isError,
    }
    droppedToolOutputs++
    tokens = await size()
  }
  let droppedMessages = 0
  const first = out[0]?.role === 'summary' || out[0]?.role === 'user' ? 1 : 0
  while (tokens > limit && out.length - first > 1) {
    out.splice(first, 1)
    droppedMessages++
    while (out.length - first > 1 && out[first]?.role === 'tool') {
      out.splice(first, 1)
      droppedMessages++
    }
    tokens = await size()
  }
  return { messages: out, droppedToolOutputs, droppedMessages, tokens }
}

/** Every tool output of `messages` (but the last message) replaced by {@link DROPPED_OUTPUT}. */
export function withoutToolOutputs(messages: readonly ModelMessage[]): {
  messages: ModelMessage[]
  dropped: number
} {
  let dropped = 0
  const out = messages.map((message, i): ModelMessage => {
    if (message.role !== 'tool' || i === messages.length - 1 || message.content === DROPPED_OUTPUT)
      return message
    dropped++
    return {
      role: 'tool',
      callId: message.callId,
      name: message.name,
      content: DROPPED_OUTPUT,
      isError: message.isError,
    }
  })
  return { messages: out, dropped }
}
