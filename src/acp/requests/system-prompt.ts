import {
  type ClientPrompt,
  isClientPromptMode,
  recordClientPrompt,
} from '../../agent/instructions/client-prompt.js'
import type { Session } from '../../session/index.js'
import type { CallContext } from '../call-context.js'
import { ProtocolError } from '../errors.js'

/**
 * The client's system prompt of a `session/new`, `load`, `resume` or `fork` request (ACP
 * `systemPrompt {mode, content: ContentBlock[]}`, advertised as `sessionCapabilities.systemPrompt`
 * with the `override` mode): `append` or `override`, its text blocks joined by blank lines.
 * Absent or null: undefined. Checked before anything is created or opened: another mode, or a
 * block that is not text, is refused with -32602 naming the field (ACP: an agent that cannot apply
 * it MUST refuse the request).
 */
export function clientSystemPrompt(method: string, params: object): ClientPrompt | undefined {
  const value: unknown = 'systemPrompt' in params ? params.systemPrompt : undefined
  if (value === undefined || value === null) return undefined
  const refuse = (field: string, problem: string) =>
    ProtocolError.invalidParams(`${method}: ${field} ${problem}`, { field })
  if (typeof value !== 'object' || Array.isArray(value)) throw refuse('systemPrompt', 'must be an object')
  const mode: unknown = 'mode' in value ? value.mode : undefined
  if (typeof mode !== 'string' || !isClientPromptMode(mode))
    throw refuse(
      'systemPrompt.mode',
      `${JSON.stringify(mode)} is not a mode this agent supports ("append", "override")`,
    )
  const content: unknown = 'content' in value ? value.content : undefined
  if (!Array.isArray(content)) throw refuse('systemPrompt.content', 'must be an array of content blocks')
  const texts = content.map((block: unknown, index) => {
    if (typeof block === 'object' && block !== null && 'type' in block && block.type === 'text')
      if ('text' in block && typeof block.text === 'string') return block.text
    throw refuse(
      `systemPrompt.content[${index}]`,
      'must be a text block (the only kind a system prompt takes)',
    )
  })
  return { mode, content: texts.join('\n\n') }
}

/** Records the request's client system prompt in `session`'s log when it changes it, made durable. */
export async function recordSystemPrompt(
  call: CallContext,
  session: Session,
  prompt: ClientPrompt | undefined,
): Promise<void> {
  if (prompt !== undefined && recordClientPrompt(session, prompt)) await call.sessions.flush(session.id)
}
