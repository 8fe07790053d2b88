import type { Logger } from 'cordis'
import type { ModelProvider, ModelRequest, SamplingLimits } from '../../types.js'
import { REASONING_EFFORTS } from '../choices.js'
import type { ProviderSettingNames } from '../http/failures.js'
import { ModelServerError } from '../http/model-server-error.js'
import { createRedactor } from '../http/redact.js'
import { retryNotice } from '../http/retry-notice.js'
import { DEFAULT_STREAM_LIMITS, type StreamLimits } from '../http/stream-limits.js'
import { postStreaming, type StreamingTarget } from '../http/streaming-post.js'
import { toChatMessages, toChatTools } from './chat-messages.js'
import { readCompletion } from './completion-stream.js'
import { chatCompletionsEndpoint } from './endpoint.js'

/** Made with the first retry or failure: a server starts (and answers `initialize`) before cordis loads. */
let logger: Promise<Logger> | undefined
const providerLogger = () => {
  logger ??= import('cordis').then((cordis) => new cordis.Logger('openai'))
  return logger
}

/** How `createOpenAiProvider` reaches an OpenAI-compatible chat-completions server. */
export interface OpenAiProviderOptions {
  /** The API root, e.g. `https://api.deepseek.com/v1`; `/chat/completions` is appended. */
  readonly baseUrl: string
  /** The server's model name (`--model-name`): the default one. */
  readonly model: string
  /** Every model name a session may choose (the `model` option). Default: just `model`. */
  readonly models?: readonly string[]
  /** The model takes images: image prompt blocks are sent as `image_url` parts. Default false. */
  readonly imageInput?: boolean
  /** Sent only as `Authorization: Bearer <key>`; omitted when absent or empty. */
  readonly apiKey?: string
  /** Retries after the first attempt for 429, 5xx and connections lost before the body. Default 3. */
  readonly maxRetries?: number
  /** Backoff base: retry n waits `retryBaseMs * 2^n` (with jitter) unless the server says. Default 500. */
  readonly retryBaseMs?: number
  /** The fetch to use (tests). Default: the global (undici) fetch. */
  readonly fetch?: typeof fetch
  /** The model's context window in tokens, reported with every usage chunk. */
  readonly contextWindow?: number
  /** Longest silence tolerated from the server (before headers, or between body chunks). Default 300 s. */
  readonly timeoutMs?: number
  /** How failure messages name the key, model and URL settings. Default: the command line's flags. */
  readonly settings?: ProviderSettingNames
  /** How much of one response is kept before the turn ends with an error. Default {@link DEFAULT_STREAM_LIMITS}. */
  readonly limits?: Partial<StreamLimits>
}

/** A header value fetch accepts: no control characters, Latin-1 only. */
const HEADER_SAFE = /^[\t\x20-\x7e\x80-\xff]*$/

/**
 * A {@link ModelProvider} named `openai` for any server speaking the streaming chat-completions API
 * with function calling (OpenAI, DeepSeek, vLLM, llama.cpp's server, Ollama).
 *
 * Each `stream` call is one POST with `stream: true` and `stream_options.include_usage`. Requests
 * that fail with 429, 5xx, or a connection lost (or silent for `timeoutMs`) before any body byte
 * are retried up to `maxRetries` times with exponential backoff and jitter, honouring `Retry-After`;
 * once a body byte has arrived nothing is retried. A failure that remains throws a
 * `ModelServerError` saying in words what failed and what to try, and is logged (info) with its
 * technical cause; neither the error nor any log line contains the API key. A response past one
 * of `limits` (one SSE event, one answer, one tool call's arguments) ends with such an error too.
 * Aborting `signal` closes the HTTP request at once (also during a backoff wait) and the stream
 * throws an error named `AbortError`. Stopping iteration early also closes the request.
 */
export function createOpenAiProvider(options: OpenAiProviderOptions): ModelProvider {
  const endpoint = chatCompletionsEndpoint(options.baseUrl)
  const apiKey = options.apiKey ?? ''
  if (!HEADER_SAFE.test(apiKey)) {
    throw new TypeError('openai provider: the API key contains characters not allowed in an HTTP header')
  }
  if (options.model === '') throw new TypeError('openai provider: a model name is required')
  const models = [options.model, ...(options.models ?? []).filter((m) => m !== options.model)]
  const model = options.model
  const maxRetries = Math.max(0, options.maxRetries ?? 3)
  const target: StreamingTarget = {
    url: endpoint.url,
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(apiKey !== '' && { authorization: `Bearer ${apiKey}` }),
    },
    fetch: options.fetch ?? globalThis.fetch,
    maxRetries,
    retryBaseMs: Math.max(0, options.retryBaseMs ?? 500),
    timeoutMs: options.timeoutMs ?? 300_000,
    context: {
      display: endpoint.display,
      redact: createRedactor([apiKey]),
      keySent: apiKey !== '',
      ...(options.settings && { settings: options.settings }),
    },
    onRetry: async (failure, retry, delayMs) => {
      ;(await providerLogger()).warn(
        'retry %d of %d in %d ms: %s (%s)',
        retry,
        maxRetries,
        Math.round(delayMs),
        failure.message,
        failure.detail,
      )
    },
  }
  const images = options.imageInput === true
  const { contextWindow } = options
  const limits: StreamLimits = { ...DEFAULT_STREAM_LIMITS, ...options.limits }
  return {
    name: 'openai',
    promptCapabilities: { image: images, audio: false, embeddedContext: true },
    models: models.map((id) => ({ id })),
    thoughtLevels: REASONING_EFFORTS,
    takesSystemPrompt: true,
    stream: (request, signal) =>
      logged(
        postStreaming(
          request.notify ? toldRetries(target, request.notify, maxRetries) : target,
          () => JSON.stringify(buildRequestBody(model, request, { images })),
          signal,
          (response, hooks) =>
            readCompletion(response, hooks, { contextWindow, context: target.context, limits }),
        ),
      ),
  }
}

/** `target`, telling `notify` of each retry (after logging it as `target` does). */
function toldRetries(
  target: StreamingTarget,
  notify: NonNullable<ModelRequest['notify']>,
  maxRetries: number,
): StreamingTarget {
  return {
    ...target,
    onRetry: async (failure, retry, delayMs) => {
      await target.onRetry(failure, retry, delayMs)
      notify(retryNotice(failure, retry, maxRetries, delayMs))
    },
  }
}

/** `chunks`, logging (info) a failure that ends them with its technical cause, which the message leaves out. */
async function* logged<T>(chunks: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* chunks
  } catch (error) {
    if (error instanceof ModelServerError) {
      ;(await providerLogger()).info('%s (%s)', error.message, error.detail || 'no further detail')
    }
    throw error
  }
}

/** An MCP server's sampling limits as chat-completions fields. */
function samplingLimits(sampling: SamplingLimits): Record<string, unknown> {
  return {
    max_tokens: sampling.maxTokens,
    ...(sampling.temperature !== undefined && { temperature: sampling.temperature }),
    ...(sampling.stopSequences !== undefined && { stop: [...sampling.stopSequences] }),
  }
}

/**
 * The chat-completions request body for one step: the session's model (else `model`), and its
 * reasoning effort as `reasoning_effort` unless it is `default`. A sampling request (an MCP
 * server's) has its own system prompt (or none) and limits.
 */
export function buildRequestBody(
  model: string,
  request: ModelRequest,
  options: { readonly images?: boolean } = {},
): Record<string, unknown> {
  const tools = toChatTools(request.tools)
  const effort = request.thoughtLevel
  const sampling = request.sampling
  const system = sampling ? sampling.systemPrompt : request.system
  return {
    model: request.model ?? model,
    ...(effort !== undefined && effort !== 'default' && { reasoning_effort: effort }),
    ...(sampling && samplingLimits(sampling)),
    messages: [
      ...(system !== undefined ? [{ role: 'system', content: system }] : []),
      ...toChatMessages(request.messages, options),
    ],
    stream: true,
    stream_options: { include_usage: true },
    ...(tools && { tools }),
  }
}
