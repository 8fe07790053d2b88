import type { ProviderEntry } from '../file-types.js'
import { readCredentials } from './credentials.js'

/** Where a provider's key was found. */
export type KeySource =
  | { readonly kind: 'env'; readonly name: string }
  | { readonly kind: 'credentials'; readonly file: string }

export interface FoundKey {
  readonly key: string
  readonly source: KeySource
}

/**
 * The key of provider `id`, read now (the environment, then the credentials file, which
 * `dsh-acp setup` may have written since the start): the variable `apiKeyEnv` names when it is set
 * and not empty, else the key stored for `id`; undefined when neither has one.
 */
export function findKey(
  id: string,
  provider: ProviderEntry,
  credentials: string,
  env: NodeJS.ProcessEnv = process.env,
): FoundKey | undefined {
  const name = provider.apiKeyEnv
  const fromEnv = name === undefined ? undefined : env[name]
  if (name !== undefined && fromEnv !== undefined && fromEnv !== '') {
    return { key: fromEnv, source: { kind: 'env', name } }
  }
  const stored = readCredentials(credentials).keys[id]
  return stored === undefined
    ? undefined
    : { key: stored, source: { kind: 'credentials', file: credentials } }
}

/** Whether requests to `provider` need a key: unless it says `keyRequired: false`. */
export function needsKey(provider: ProviderEntry): boolean {
  return provider.keyRequired !== false
}
