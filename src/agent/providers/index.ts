import path from 'node:path'
import { AgentError, AgentErrorCode } from '../errors.js'
import type { ModelProvider } from '../types.js'
import { modelNameList } from './choices.js'
import { createEchoProvider } from './echo.js'
import { modelTermsOf, withModelTerms } from './model-terms.js'
import { openAiProviderFromOptions } from './openai/index.js'
import type { ProviderOptions } from './provider-options.js'
import { createScriptProvider, loadScriptFile } from './script.js'

export { modelNameList, REASONING_EFFORTS } from './choices.js'
export { createEchoProvider, echoAnswer, echoAnswerPieces, userTexts } from './echo.js'
export { contextWindowFor, knownContextWindow, type ModelPricing, pricingFor } from './model-table.js'
export type { ProviderOptions } from './provider-options.js'
export { createScriptProvider, loadScriptFile, scriptPosition } from './script.js'
export * from './script-format.js'

/** Makes a provider from the part of the spec after `name:` (empty when there is none). */
export type ProviderFactory = (argument: string, options: ProviderOptions) => ModelProvider

/**
 * The providers `--model` can name. Extension point: a provider module adds one entry here, e.g.
 * `openai: (_argument, options) => createOpenAiProvider(options)` from `./openai/index.js`.
 */
const FACTORIES: Readonly<Record<string, ProviderFactory>> = {
  echo: (_argument, options) => createEchoProvider(modelNameList(options.modelName)),
  openai: (argument, options) => openAiProviderFromOptions(options, argument),
  script: (argument, options) => {
    if (argument === '')
      throw new AgentError(AgentErrorCode.UNKNOWN_PROVIDER, 'script needs a file: script:<path>')
    return createScriptProvider(loadScriptFile(path.resolve(options.cwd ?? process.cwd(), argument)))
  },
}

/** The provider names `createProvider` knows. */
export function providerNames(): string[] {
  return Object.keys(FACTORIES)
}

/**
 * Resolves a model spec: `echo` (also the default, for an empty spec), `script:<path to JSON file>`,
 * or any other registered `name[:argument]`. Throws `UNKNOWN_PROVIDER` for a name it does not know,
 * `INVALID_SCRIPT` for a bad script file. Every provider answers its models' context windows and
 * prices from the options (`contextWindow`, `prices`, `modelContextWindows`, `modelPrices`; see
 * `modelTermsOf`, which throws a TypeError for a bad one) and the built-in window table.
 */
export function createProvider(spec = 'echo', options: ProviderOptions = {}): ModelProvider {
  const trimmed = spec.trim() || 'echo'
  const colon = trimmed.indexOf(':')
  const name = colon < 0 ? trimmed : trimmed.slice(0, colon)
  const argument = colon < 0 ? '' : trimmed.slice(colon + 1)
  const factory = Object.hasOwn(FACTORIES, name) ? FACTORIES[name] : undefined
  if (!factory) {
    throw new AgentError(
      AgentErrorCode.UNKNOWN_PROVIDER,
      `unknown model ${JSON.stringify(name)}: expected one of ${providerNames().join(', ')}`,
      { name },
    )
  }
  const terms = modelTermsOf(options)
  return withModelTerms(factory(argument, options), terms)
}
