import type { Session } from '../../session/index.js'
import { type ExtensionEventDataMap, extensionData } from '../../session/log/events.js'
import { lastRecorded } from '../shared/last-recorded.js'

/** The event that records the client's own system prompt (see event-definitions.ts). */
export const CLIENT_PROMPT_SET = 'instructions:client' satisfies keyof ExtensionEventDataMap

/** How a client's system prompt combines with ours: after it, or instead of it. */
export const CLIENT_PROMPT_MODES = ['append', 'override'] as const
export type ClientPromptMode = (typeof CLIENT_PROMPT_MODES)[number]

/** A client's system prompt, as a session's log records it. */
export interface ClientPrompt {
  readonly mode: ClientPromptMode
  readonly content: string
}

export function isClientPromptMode(mode: string): mode is ClientPromptMode {
  return (CLIENT_PROMPT_MODES as readonly string[]).includes(mode)
}

/** The client's system prompt the log of `session` records last (one of a known mode); undefined: none. */
export const recordedClientPrompt = lastRecorded<ClientPrompt>((event) => {
  const data = extensionData(event, CLIENT_PROMPT_SET)
  return data !== undefined && isClientPromptMode(data.mode)
    ? { mode: data.mode, content: data.content }
    : undefined
})

/**
 * Records `prompt` as the session's client system prompt when it differs from what the log holds
 * (nothing is written otherwise); returns whether it wrote. The caller flushes.
 */
export function recordClientPrompt(session: Session, prompt: ClientPrompt): boolean {
  const recorded = recordedClientPrompt(session)
  if (recorded?.mode === prompt.mode && recorded.content === prompt.content) return false
  session.append({ type: CLIENT_PROMPT_SET, data: { mode: prompt.mode, content: prompt.content } })
  return true
}

/** Our system prompt `own` with the client's applied: appended after a blank line, or replacing it. */
export function withClientPrompt(own: string, prompt: ClientPrompt | undefined): string {
  if (prompt === undefined) return own
  if (prompt.mode === 'override') return prompt.content
  return prompt.content === '' ? own : `${own}\n\n${prompt.content}`
}
