import { knownContextWindow, type ModelPricing, REASONING_EFFORTS } from '../../agent/providers/index.js'
import { type ModelTables, openAiProviderFromOptions } from '../../agent/providers/openai/index.js'
import type { ModelProvider } from '../../agent/types.js'
import type { ConfiguredModel } from './file-models.js'

/** What every model's requests share: the retry and timeout limits. */
export interface RequestLimits {
  readonly maxRetries?: number
  readonly timeoutMs?: number
  /** `--context-window` and `--price-*`: over every configured model's own. */
  readonly contextWindow?: number
  readonly prices?: ModelPricing
}

/**
 * One provider for the models of the configuration files: the session's `model` option picks one
 * (`provider/name`, the first by default), whose request goes to its own server with its own key,
 * context window, prices, image support and default reasoning effort. The key is looked up for
 * every request (`keyOf`), so one stored by `dsh-acp setup` or removed by `logout` after the start
 * applies at once; each model's client is made again only when its key changed.
 */
export function createFileProvider(
  models: readonly ConfiguredModel[],
  keyOf: (providerId: string) => string | undefined,
  limits: RequestLimits,
): ModelProvider {
  if (models.length === 0) throw new TypeError('the configuration names no models')
  const clients = new Map<string, { key: string | undefined; provider: ModelProvider }>()
  const byId = new Map(models.map((m) => [m.id, m]))
  const clientOf = (configured: ConfiguredModel): ModelProvider => {
    const key = keyOf(configured.providerId)
    const cached = clients.get(configured.id)
    if (cached && cached.key === key) return cached.provider
    const { model } = configured
    const tables: ModelTables = {
      ...(model.contextWindow !== undefined && {
        modelContextWindows: { [model.name]: model.contextWindow },
      }),
      ...(model.prices !== undefined && { modelPrices: { [model.name]: model.prices } }),
    }
    const providerPath = `providers.${configured.providerId}`
    const settings = {
      key: configured.provider.apiKeyEnv
        ? `$${configured.provider.apiKeyEnv} (or the key dsh-acp setup stored for ${configured.providerId})`
        : `the key dsh-acp setup stored for ${configured.providerId}`,
      model: `the model name in ${providerPath}.models`,
      baseUrl: `${providerPath}.baseUrl`,
      noKeySent: `No API key was sent (none is set for ${configured.providerId}): run dsh-acp setup in a terminal to store one (no restart needed)`,
    }
    const provider = openAiProviderFromOptions({
      ...tables,
      settings,
      baseUrl: configured.provider.baseUrl,
      modelName: model.name,
      ...(key !== undefined && { apiKey: key }),
      ...(model.imageInput === true && { imageInput: true }),
      ...(model.contextWindow !== undefined && { contextWindow: model.contextWindow }),
      ...(limits.maxRetries !== undefined && { maxRetries: limits.maxRetries }),
      ...(limits.timeoutMs !== undefined && { timeoutMs: limits.timeoutMs }),
    })
    clients.set(configured.id, { key, provider })
    return provider
  }
  const first = models[0] as ConfiguredModel
  return {
    name: 'openai',
    promptCapabilities: {
      image: models.some((m) => m.model.imageInput === true),
      audio: false,
      embeddedContext: true,
    },
    models: models.map((m) => ({
      id: m.id,
      name: m.model.title ?? m.model.name,
      description: m.provider.title ?? m.providerId,
    })),
    thoughtLevels: REASONING_EFFORTS,
    // The system prompt, windows and prices of the configured models (flags first; a window the
    // file does not give comes from the built-in table, by the model's own name).
    takesSystemPrompt: true,
    contextWindow(id) {
      const configured = byId.get(id)
      if (!configured) return limits.contextWindow
      return (
        limits.contextWindow ?? configured.model.contextWindow ?? knownContextWindow(configured.model.name)
      )
    },
    pricing: (id) => limits.prices ?? byId.get(id)?.model.prices,
    stream(request, signal) {
      const configured = (request.model !== undefined && byId.get(request.model)) || first
      const effort = request.thoughtLevel
      const thoughtLevel =
        (effort === undefined || effort === 'default') && configured.model.reasoningEffort !== undefined
          ? configured.model.reasoningEffort
          : effort
      return clientOf(configured).stream(
        {
          ...request,
          model: configured.model.name,
          ...(thoughtLevel !== undefined && { thoughtLevel }),
        },
        signal,
      )
    },
  }
}
