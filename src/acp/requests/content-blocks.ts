import type * as acp from '@agentclientprotocol/sdk'
import type { ContentBlock } from '../../agent/types.js'
import { ProtocolError } from '../errors.js'

/** The prompt capability each non-baseline block type needs (text and resource_link are baseline). */
const NEEDS: Readonly<Record<string, keyof acp.PromptCapabilities>> = {
  image: 'image',
  audio: 'audio',
  resource: 'embeddedContext',
}

/**
 * A prompt's content blocks (already valid ACP, see `validate-params.ts`), refused with -32602
 * naming the block when its type needs a prompt capability this agent does not advertise.
 */
export function promptBlocks(
  method: string,
  prompt: readonly ContentBlock[],
  supported: acp.PromptCapabilities,
): readonly ContentBlock[] {
  prompt.forEach((block, index) => {
    // Own keys only: `constructor` or `toString` name no capability.
    const needs = Object.hasOwn(NEEDS, block.type) ? NEEDS[block.type] : undefined
    if (needs !== undefined && supported[needs] !== true) {
      throw ProtocolError.invalidParams(
        `${method}: prompt[${index}] is ${block.type} content, which this agent does not accept (see promptCapabilities)`,
        { field: `prompt[${index}]` },
      )
    }
  })
  return prompt
}
