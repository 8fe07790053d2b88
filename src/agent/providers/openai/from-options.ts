import type { ModelProvider } from '../../types.js'
import { modelNameList } from '../choices.js'
import type { ProviderOptions } from '../provider-options.js'
import { createOpenAiProvider } from './provider.js'

/** Per-model tables (keyed by model id) a configured model fills. */
export type ModelTables = Pick<ProviderOptions, 'modelPrices' | 'modelContextWindows'>

/**
 * The `openai` provider from the provider options: `baseUrl` (`--base-url`), `modelName`
 * (`--model-name`, or the argument of `--model openai:<name>`), `apiKey` (from `DSH_API_KEY`), and
 * optionally `contextWindow`, `timeoutMs`, `maxRetries`, `retryBaseMs` and `settings`. Throws a
 * TypeError naming the missing flag; never echoes the key.
 */
export function openAiProviderFromOptions(options: ProviderOptions, argument = ''): ModelProvider {
  const baseUrl = options.baseUrl
  if (baseUrl === undefined || baseUrl === '') {
    throw new TypeError(
      '--model openai needs --base-url URL (the chat completions server, e.g. https://api.deepseek.com/v1)',
    )
  }
  const listed = modelNameList(options.modelName)
  const models = listed.length > 0 ? listed : modelNameList(argument)
  if (models.length === 0) {
    throw new TypeError('--model openai needs --model-name NAME[,NAME...] (or --model openai:NAME)')
  }
  return createOpenAiProvider({
    baseUrl,
    model: models[0] as string,
    models,
    ...(options.imageInput === true && { imageInput: true }),
    ...(options.apiKey !== undefined && { apiKey: options.apiKey }),
    ...(options.contextWindow !== undefined && { contextWindow: options.contextWindow }),
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    ...(options.maxRetries !== undefined && { maxRetries: options.maxRetries }),
    ...(options.retryBaseMs !== undefined && { retryBaseMs: options.retryBaseMs }),
    ...(options.settings !== undefined && { settings: options.settings }),
  })
}
