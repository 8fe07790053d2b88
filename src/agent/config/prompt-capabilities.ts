import type { ModelProvider, PromptCapabilities } from '../types.js'

/** What a provider that declares nothing supports: the ACP baseline (text and resource links). */
const BASELINE_PROMPT_CAPABILITIES: PromptCapabilities = {
  image: false,
  audio: false,
  embeddedContext: false,
}

/** ACP `promptCapabilities` of an agent on `provider`: what the provider really passes on to its model. */
export function promptCapabilitiesOf(provider: ModelProvider): PromptCapabilities {
  return { ...(provider.promptCapabilities ?? BASELINE_PROMPT_CAPABILITIES) }
}
