import type { ModelProvider } from '../../types.js'
import { REASONING_EFFORTS } from '../choices.js'
import type { ModelPricing, ModelTerms } from '../model-table.js'
import { withModelTerms } from '../model-terms.js'
import { type ModelTables, openAiProviderFromOptions } from './from-options.js'

/** An OpenAI-compatible server a configuration names (the config file's `providers.<id>`). */
export interface ModelServer {
  readonly title?: string
  readonly baseUrl: string
  /** The variable holding its key (said in failure messages). */
  readonly apiKeyEnv?: string
}

/** One model of such a server, with what the configuration says of it. */
export interface ServerModel {
  readonly name: string
  readonly title?: string
  readonly contextWindow?: number
  readonly prices?: ModelPricing
  readonly imageInput?: boolean
  readonly reasoningEffort?: 'low' | 'medium' | 'high'
}

/** One model a session may choose: `provider/name` on its server. */
export interface ConfiguredModel {
  /** `provider/name`: the session's `model` option value. */
  readonly id: string
  readonly providerId: string
  readonly provider: ModelServer
  readonly model: ServerModel
}

/**
 * A server as the configuration says now (read again since the start): its base URL, and whether
 * it was disabled. Undefined: as it was at the start.
 */
export interface LiveServer {
  readonly baseUrl: string
  readonly disabled: boolean
}

/** A turn's model request went to a provider disabled since the start (`providers/disable`). */
export class ProviderDisabledError extends Error {
  constructor(providerId: string, modelId: string) {
    super(
      `the provider ${providerId} was disabled (providers/disable), so the model ${modelId} cannot answer: choose a model of another provider, or enable it again with providers/set`,
    )
    this.name = 'ProviderDisabledError'
  }
}

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
 * applies at once; each model's client is made again only when its key or base URL changed.
 * `live` says what the configuration says of a server now (a `providers/set` base URL, a
 * `providers/disable`): read once per turn (per `stream` signal) and kept for the turn's later
 * steps, so a change applies from the next turn and never switches or fails a running one.
 */
export function createConfiguredProvider(
  models: readonly ConfiguredModel[],
  keyOf: (providerId: string) => string | undefined,
  limits: RequestLimits,
  live: (providerId: string) => LiveServer | undefined = () => undefined,
): ModelProvider {
  if (models.length === 0) throw new TypeError('the configuration names no models')
  const clients = new Map<string, { key: string | undefined; baseUrl: string; provider: ModelProvider }>()
  const byId = new Map(models.map((m) => [m.id, m]))
  const turns = new WeakMap<AbortSignal, Map<string, LiveServer>>()
  /** The server of `configured` for the turn of `signal`: read at the turn's first request. */
  const serverFor = (configured: ConfiguredModel, signal: AbortSignal): LiveServer => {
    const pinned = turns.get(signal) ?? new Map<string, LiveServer>()
    turns.set(signal, pinned)
    let server = pinned.get(configured.providerId)
    if (server === undefined) {
      server = live(configured.providerId) ?? { baseUrl: configured.provider.baseUrl, disabled: false }
      pinned.set(configured.providerId, server)
    }
    return server
  }
  const clientOf = (configured: ConfiguredModel, baseUrl: string): ModelProvider => {
    const key = keyOf(configured.providerId)
    const cached = clients.get(configured.id)
    if (cached && cached.key === key && cached.baseUrl === baseUrl) return cached.provider
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
    const client = openAiProviderFromOptions({
      ...tables,
      settings,
      baseUrl,
      modelName: model.name,
      ...(key !== undefined && { apiKey: key }),
      ...(model.imageInput === true && { imageInput: true }),
      ...(model.contextWindow !== undefined && { contextWindow: model.contextWindow }),
      ...(limits.maxRetries !== undefined && { maxRetries: limits.maxRetries }),
      ...(limits.timeoutMs !== undefined && { timeoutMs: limits.timeoutMs }),
    })
    clients.set(configured.id, { key, baseUrl, provider: client })
    return client
  }
  const first = models[0] as ConfiguredModel
  const provider: ModelProvider = {
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
    takesSystemPrompt: true,
    stream(request, signal) {
      const configured = (request.model !== undefined && byId.get(request.model)) || first
      const effort = request.thoughtLevel
      const thoughtLevel =
        (effort === undefined || effort === 'default') && configured.model.reasoningEffort !== undefined
          ? configured.model.reasoningEffort
          : effort
      const server = serverFor(configured, signal)
      if (server.disabled) return failing(new ProviderDisabledError(configured.providerId, configured.id))
      return clientOf(configured, server.baseUrl).stream(
        {
          ...request,
          model: configured.model.name,
          ...(thoughtLevel !== undefined && { thoughtLevel }),
        },
        signal,
      )
    },
  }
  // The windows and prices: as every provider's (flags first, then each model's own, then the
  // built-in table of windows by the model's name).
  return withModelTerms(provider, termsOf(models, limits))
}

/** The flags' window and prices, and each configured model's own, by model id. */
function termsOf(models: readonly ConfiguredModel[], limits: RequestLimits): ModelTerms {
  const windows = models.flatMap((m) =>
    m.model.contextWindow === undefined ? [] : [[m.id, m.model.contextWindow] as const],
  )
  const prices = models.flatMap((m) =>
    m.model.prices === undefined ? [] : [[m.id, m.model.prices] as const],
  )
  return {
    ...(limits.contextWindow !== undefined && { contextWindow: limits.contextWindow }),
    ...(limits.prices !== undefined && { prices: limits.prices }),
    modelContextWindows: Object.fromEntries(windows),
    modelPrices: Object.fromEntries(prices),
  }
}

/** A stream that fails with `error` when read. */
function failing(error: Error): AsyncIterable<never> {
  return {
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }),
  }
}
