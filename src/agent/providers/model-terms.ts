import { isObject } from '../../lib/is.js'
import type { ModelProvider } from '../types.js'
import { contextWindowFor, type ModelPricing, type ModelTerms, pricingFor } from './model-table.js'

/**
 * The {@link ModelTerms} in a provider's loose options: `contextWindow` (`--context-window`),
 * `prices` (`--price-*`), and the config file's `modelContextWindows` and `modelPrices` (keyed by
 * model id). Throws a TypeError naming the option for a value of the wrong shape.
 */
export function modelTermsOf(options: {
  readonly contextWindow?: unknown
  readonly prices?: unknown
  readonly modelContextWindows?: unknown
  readonly modelPrices?: unknown
}): ModelTerms {
  const { contextWindow, prices, modelContextWindows, modelPrices } = options
  if (contextWindow !== undefined && !isWindow(contextWindow)) {
    throw new TypeError('contextWindow must be a positive integer (tokens)')
  }
  return {
    ...(contextWindow !== undefined && { contextWindow: contextWindow as number }),
    ...(prices !== undefined && { prices: checkedPricing(prices, 'prices') }),
    ...(modelContextWindows !== undefined && {
      modelContextWindows: checkedRecord(modelContextWindows, 'modelContextWindows', (value, where) => {
        if (!isWindow(value)) throw new TypeError(`${where} must be a positive integer (tokens)`)
        return value
      }),
    }),
    ...(modelPrices !== undefined && {
      modelPrices: checkedRecord(modelPrices, 'modelPrices', checkedPricing),
    }),
  }
}

/**
 * `provider` with {@link ModelProvider.contextWindow} and {@link ModelProvider.pricing} answered
 * from `terms` (see `contextWindowFor` and `pricingFor`) where it does not answer them itself.
 */
export function withModelTerms(provider: ModelProvider, terms: ModelTerms): ModelProvider {
  const ownWindow = provider.contextWindow
  const ownPricing = provider.pricing
  return {
    ...provider,
    stream: (request, signal) => provider.stream(request, signal),
    contextWindow: (model) => ownWindow?.(model) ?? contextWindowFor(model, terms),
    pricing: (model) => ownPricing?.(model) ?? pricingFor(model, terms),
  }
}

/**
 * The configured entries that name a model the provider does not offer (`modelContextWindows`
 * and `modelPrices` keys): they are ignored, and the user is told (a configuration notice).
 */
export function unusedModelTerms(provider: ModelProvider, terms: ModelTerms): string[] {
  const offered = new Set((provider.models ?? [{ id: provider.name }]).map((model) => model.id))
  const named = [...Object.keys(terms.modelContextWindows ?? {}), ...Object.keys(terms.modelPrices ?? {})]
  return [...new Set(named.filter((id) => !offered.has(id)))]
}

function isWindow(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 1
}

function isPrice(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0
}

function checkedPricing(value: unknown, where: string): ModelPricing {
  if (!isObject(value))
    throw new TypeError(`${where} must be an object { input, cachedInput?, output, currency? }`)
  const { input, cachedInput, output, currency } = value
  if (!isPrice(input))
    throw new TypeError(`${where}.input must be a price per million tokens (a number >= 0)`)
  if (!isPrice(output))
    throw new TypeError(`${where}.output must be a price per million tokens (a number >= 0)`)
  if (cachedInput !== undefined && !isPrice(cachedInput)) {
    throw new TypeError(`${where}.cachedInput must be a price per million tokens (a number >= 0)`)
  }
  if (currency !== undefined && !isCurrency(currency)) {
    throw new TypeError(
      `${where}.currency must be a currency code such as USD (1-16 letters, digits, _ or -)`,
    )
  }
  return {
    input,
    output,
    ...(cachedInput !== undefined && { cachedInput }),
    ...(currency !== undefined && { currency }),
  }
}

/** A currency code (`USD`) or another unit (`credits`): 1-16 letters, digits, `_` or `-`. */
export function isCurrency(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{1,16}$/.test(value)
}

function checkedRecord<T>(
  value: unknown,
  where: string,
  check: (value: unknown, where: string) => T,
): Readonly<Record<string, T>> {
  if (!isObject(value)) throw new TypeError(`${where} must be an object keyed by model id`)
  const out: Record<string, T> = {}
  for (const [model, entry] of Object.entries(value)) {
    out[model] = check(entry, `${where}[${JSON.stringify(model)}]`)
  }
  return out
}
