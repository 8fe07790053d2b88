import type { ContentBlock } from '@agentclientprotocol/sdk'

/** The kinds of a {@link WholeMessageUpdate}, and the chunk ACP v1 sends each block of one as. */
export const WHOLE_MESSAGE_CHUNKS = {
  user_message: 'user_message_chunk',
  agent_message: 'agent_message_chunk',
  agent_thought: 'agent_thought_chunk',
} as const

export type WholeMessageKind = keyof typeof WHOLE_MESSAGE_CHUNKS

/**
 * A message whole, as its event records it (a replay, a steered message, a prompt shown to another
 * client): ACP v2's upsert of the message (`user_message`, `agent_message`, `agent_thought`), whose
 * `content` replaces what the client holds for `messageId`. ACP v1 has no such update: its view
 * sends the message as one chunk per block, in order (`user_message_chunk`, ...). Text a model
 * streams comes as chunks, live; the whole message is what its event keeps.
 */
export interface WholeMessageUpdate {
  readonly sessionUpdate: WholeMessageKind
  readonly messageId: string
  readonly content: readonly ContentBlock[]
  /** The message's own metadata (a steered message's `_meta.dsh.steered`). */
  readonly _meta?: { readonly dsh: { readonly steered: true } }
}

/** True for the kinds of a {@link WholeMessageUpdate}. */
export function isWholeMessage(update: { readonly sessionUpdate: string }): update is WholeMessageUpdate {
  return Object.hasOwn(WHOLE_MESSAGE_CHUNKS, update.sessionUpdate)
}

/** The whole user message `messageId` (a steered one marked `_meta.dsh.steered`). */
export function userMessage(
  messageId: string,
  content: readonly ContentBlock[],
  steered = false,
): WholeMessageUpdate {
  return {
    sessionUpdate: 'user_message',
    messageId,
    content,
    ...(steered && { _meta: { dsh: { steered: true } } }),
  }
}

/** An agent message's whole text (`agent_message`) or its whole thought (`agent_thought`). */
export function agentText(kind: 'agent_message' | 'agent_thought', messageId: string, text: string) {
  const update: WholeMessageUpdate = { sessionUpdate: kind, messageId, content: [{ type: 'text', text }] }
  return update
}
