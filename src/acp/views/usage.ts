import type * as unstable from '@agentclientprotocol/sdk/unstable'
import type { TurnUsage } from '../../session/index.js'

/**
 * A turn's usage as the unstable `PromptResponse.usage` has it: `totalTokens` is input + output
 * (servers count reasoning within output and cached tokens within input); `thoughtTokens` and
 * `cachedReadTokens` only where the server reported them.
 */
export function promptUsage(usage: TurnUsage): unstable.Usage {
  return {
    totalTokens: usage.inputTokens + usage.outputTokens,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    ...(usage.reasoningTokens !== undefined && { thoughtTokens: usage.reasoningTokens }),
    ...(usage.cachedInputTokens !== undefined && { cachedReadTokens: usage.cachedInputTokens }),
  }
}
