import type { ContentBlock } from '../../session/index.js'
import type { CallContext } from '../call-context.js'
import { ProtocolError } from '../errors.js'
import { promptBlocks } from '../requests/content-blocks.js'
import { validateParams } from '../validate-params.js'

/**
 * The blocks `method` was given for a session's turn, each checked as `session/prompt`'s are (the
 * SDK's schema, the client's prompt capabilities); -32602 naming `method` otherwise.
 */
export async function steeringPrompt(
  method: string,
  call: CallContext,
  sessionId: string,
  prompt: unknown,
): Promise<readonly ContentBlock[]> {
  let valid: { prompt: readonly ContentBlock[] }
  try {
    valid = await validateParams('session/prompt', { sessionId, prompt })
  } catch (error) {
    if (error instanceof ProtocolError) {
      throw ProtocolError.invalidParams(error.message.replace(/^session\/prompt/, method), error.data)
    }
    throw error
  }
  return promptBlocks(method, valid.prompt, call.agent.promptCapabilities)
}
