import type { ModelProvider } from '../../types.js'
import { modelNameList } from '../choices.js'
import type { ProviderSettingNames } from '../http/failures.js'
import type { ModelPricing } from '../model-table.js'
import { createOpenAiProvider } from './provider.js'

/** Per-model tables (keyed by model id) the configuration file fills; given with the loose options. */
export type ModelTables = Pick<OpenAiOptions, 'modelPrices' | 'modelContextWindows'>

/**
 * The loose options the CLI and the config file gather for the `openai` provider. Besides those
 * named below: `baseUrl`, `modelName`, `apiKey`, `imageInput`, `contextWindow`, `timeoutMs`,
 * `maxRetries`, `retryBaseMs`. The windows and prices (with `contextWindow` and `prices`) are
 * applied to every provider by `createProvider` (`withModelTerms`).
 */
export interface OpenAiOptions {
  /** Prices per model id (the config file's); `prices` (`--price-*`) comes first. */
  readonly modelPrices?: Readonly<Record<string, ModelPricing>>
  /** Context windows in tokens per model id (the config file's); `contextWindow` comes first. */
  readonly modelContextWindows?: Readonly<Record<string, number>>
  readonly [option: string]: unknown
}

/**
 * The `openai` provider from the loose options the CLI gathers (`ProviderOptions`): `baseUrl`
 * (`--base-url`), `modelName` (`--model-name`, or the argument of `--model openai:<name>`),
 * `apiKey` (from `DSH_API_KEY`), and optionally the numbers `contextWindow`, `timeoutMs`,
 * `maxRetries`, `retryBaseMs`. Throws a TypeError naming the missing flag; never echoes the key.
 */
export function openAiProviderFromOptions(options: OpenAiOptions, argument = ''): ModelProvider {
  const baseUrl = options.baseUrl
  if (typeof baseUrl !== 'string' || baseUrl === '') {
    throw new TypeError(
      '--model openai needs --base-url URL (the chat completions server, e.g. https://api.deepseek.com/v1)',
    )
  }
  const listed = modelNameList(options.modelName)
  const models = listed.length > 0 ? listed : modelNameList(argument)
  if (models.length === 0) {
    throw new TypeError('--model openai needs --model-name NAME[,NAME...] (or --model openai:NAME)')
  }
  const number = (key: string) => {
    const value = options[key]
    return typeof value === 'number' && Number.isFinite(value) ? { [key]: value } : {}
  }
  return createOpenAiProvider({
    baseUrl,
    model: models[0] as string,
    models,
    ...(options.imageInput === true && { imageInput: true }),
    ...(typeof options.apiKey === 'string' && { apiKey: options.apiKey }),
    ...number('contextWindow'),
    ...number('timeoutMs'),
    ...number('maxRetries'),
    ...number('retryBaseMs'),
    ...(isSettingNames(options.settings) && { settings: options.settings }),
  })
}

function isSettingNames(value: unknown): value is ProviderSettingNames {
  return (
    typeof value === 'object' && value !== null && typeof (value as ProviderSettingNames).key === 'string'
  )
}
