import type { ProviderSettingNames } from './http/failures.js'
import type { ModelTerms } from './model-table.js'

/**
 * What a provider factory (`createProvider`) is made from: the command line's model options or a
 * configured model's. Each provider reads what it needs: echo the model names, script the cwd,
 * openai the server, key and limits; every one the windows and prices (`ModelTerms`).
 */
export interface ProviderOptions extends ModelTerms {
  /** Relative paths in a spec (a script file) resolve against it. Default: the process's cwd. */
  readonly cwd?: string
  /** openai: the API root (`--base-url`); `/chat/completions` is appended. */
  readonly baseUrl?: string
  /** The models a session may choose, comma-separated, the first the default (`--model-name`). */
  readonly modelName?: string
  /** openai: sent as `Authorization: Bearer` (`DSH_API_KEY`, or the configured provider's key). */
  readonly apiKey?: string
  /** openai: the models take images. */
  readonly imageInput?: boolean
  /** openai: the longest silence from the server, in ms. */
  readonly timeoutMs?: number
  /** openai: retries of 429, 5xx and lost connections. */
  readonly maxRetries?: number
  /** openai: the backoff base of retries, in ms. */
  readonly retryBaseMs?: number
  /** openai: how failure messages name the key, model and URL settings. Default: the flags. */
  readonly settings?: ProviderSettingNames
}
