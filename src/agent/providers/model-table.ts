/** Prices per million tokens. */
export interface ModelPricing {
  readonly input: number
  readonly cachedInput?: number
  readonly output: number
  readonly currency?: string
}

/** The currency of a price that names none. */
export const DEFAULT_CURRENCY = 'USD'

/**
 * Context windows of common models, in tokens, as their makers publish them: a model id matches
 * the first pattern that matches its last path segment (`meta-llama/Llama-3.1-8B-Instruct` is
 * looked up as `llama-3.1-8b-instruct`), lower-cased, with Ollama's `name:tag` form read as
 * `name-tag`. Where a family's window depends on how it is served (Qwen's YaRN), the figure is the
 * default a server uses without extra configuration, so the window errs low rather than high.
 */
const CONTEXT_WINDOWS: readonly (readonly [pattern: RegExp, tokens: number])[] = [
  // DeepSeek: api-docs.deepseek.com/quick_start/pricing, "CONTEXT LENGTH 128K" for deepseek-chat
  // and deepseek-reasoner (DeepSeek-V3.2); the open-weight V3/R1 cards (huggingface.co/deepseek-ai)
  // say 128K as well.
  [/^deepseek-(chat|reasoner)$/, 128_000],
  [/^deepseek-(v3|r1)/, 128_000],
  // OpenAI: platform.openai.com/docs/models/<model>, "Context window".
  [/^gpt-5/, 400_000], // gpt-5, gpt-5-mini, gpt-5-nano: 400,000
  [/^gpt-4\.1/, 1_047_576], // gpt-4.1, -mini, -nano: 1,047,576
  [/^gpt-4o/, 128_000], // gpt-4o, gpt-4o-mini: 128,000
  [/^gpt-4-turbo/, 128_000], // gpt-4-turbo: 128,000
  [/^o(1|3|4-mini)(-|$)/, 200_000], // o1, o3, o3-mini, o4-mini: 200,000
  [/^gpt-oss/, 131_072], // gpt-oss-20b, gpt-oss-120b: 131,072
  [/^gpt-3\.5-turbo/, 16_385], // gpt-3.5-turbo: 16,385
  // Qwen: the model cards on huggingface.co/Qwen. Qwen3-Coder-30B-A3B / 480B-A35B: "262,144
  // natively"; Qwen3 (dense and MoE): "32,768 natively" (131,072 only with YaRN configured);
  // Qwen2.5 and Qwen2.5-Coder Instruct: config.json's 32,768 (131,072 only with YaRN).
  [/^qwen3-coder/, 262_144],
  [/^qwen3/, 32_768],
  [/^qwen2\.5/, 32_768],
  // Llama: the model cards on huggingface.co/meta-llama and llama.com/docs/model-cards-and-prompt-formats.
  // Llama 3.1, 3.2 (1B, 3B) and 3.3: "128K" context (config.json max_position_embeddings 131,072);
  // Llama 3 (8B, 70B): 8,192.
  [/^llama-?3\.[123]/, 131_072],
  [/^llama-?3(-|$)/, 8_192],
]

/** A model id as the table looks it up (see {@link CONTEXT_WINDOWS}). */
function tableKey(modelId: string): string {
  const name = modelId.slice(modelId.lastIndexOf('/') + 1).toLowerCase()
  return name.replace(':', '-')
}

/** The built-in table's context window for `modelId`, or undefined for a model it does not know. */
export function knownContextWindow(modelId: string): number | undefined {
  const key = tableKey(modelId)
  for (const [pattern, tokens] of CONTEXT_WINDOWS) if (pattern.test(key)) return tokens
  return undefined
}

/** What a run was configured with for the models' context windows and prices. */
export interface ModelTerms {
  /** `--context-window`: every model's window. */
  readonly contextWindow?: number
  /** The config file's windows per model id. */
  readonly modelContextWindows?: Readonly<Record<string, number>>
  /** `--price-*`: every model's price. */
  readonly prices?: ModelPricing
  /** The config file's prices per model id. */
  readonly modelPrices?: Readonly<Record<string, ModelPricing>>
}

/**
 * The context window of `modelId` in tokens: `--context-window` (`configured.contextWindow`)
 * first, then the configured window of that model (`configured.modelContextWindows`), then the
 * built-in table; undefined when none knows it. Flags come before the config file, as everywhere.
 */
export function contextWindowFor(modelId: string, configured: ModelTerms = {}): number | undefined {
  return (
    configured.contextWindow ??
    ownValue(configured.modelContextWindows, modelId) ??
    knownContextWindow(modelId)
  )
}

/**
 * The price of `modelId`: `--price-*` (`configured.prices`) first, then the configured price of that
 * model; undefined when neither is set (there are no built-in prices: they change too often).
 */
export function pricingFor(modelId: string, configured: ModelTerms = {}): ModelPricing | undefined {
  return configured.prices ?? ownValue(configured.modelPrices, modelId)
}

function ownValue<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined
}
