import type * as unstable from '@agentclientprotocol/sdk/unstable'
import type { ProviderSettings } from '../../../acp/providers/provider-wire.js'
import type { LiveServer } from '../../../agent/providers/openai/index.js'
import type { ProviderEntry } from '../file-types.js'
import { readSmallFile } from '../small-file.js'
import { findKey, needsKey } from './provider-keys.js'
import { disableProvider, requiredProviderOf, SUPPORTED_API_TYPES, setProvider } from './provider-writes.js'

interface FileProviders {
  readonly providers: Record<string, ProviderEntry>
  readonly required: string | undefined
}

/** The providers of `file` now, and the one its `defaultModel` needs; none when it cannot be read. */
function readProviders(file: string): FileProviders {
  const got = readSmallFile(file)
  if (got.state !== 'read') return { providers: {}, required: undefined }
  try {
    const value = JSON.parse(got.text) as { providers?: unknown }
    const providers = value.providers
    return {
      providers:
        typeof providers === 'object' && providers !== null && !Array.isArray(providers)
          ? (providers as Record<string, ProviderEntry>)
          : {},
      required: requiredProviderOf(value),
    }
  } catch {
    return { providers: {}, required: undefined }
  }
}

/**
 * What the user's configuration `file` says of a provider now (its `baseUrl`, whether it is
 * `disabled`), for the model provider to read at each turn's start, so that `providers/set` and
 * `providers/disable` apply to the next turn without a restart. Undefined when the file cannot be
 * read or has no usable entry for it: the provider is then as it was at the start.
 */
export function liveServers(file: string): (providerId: string) => LiveServer | undefined {
  return (providerId) => {
    const { providers } = readProviders(file)
    const entry = Object.hasOwn(providers, providerId) ? providers[providerId] : undefined
    if (typeof entry !== 'object' || entry === null) return undefined
    const baseUrl = typeof entry.baseUrl === 'string' ? entry.baseUrl : undefined
    if (entry.disabled === true) return { baseUrl: baseUrl ?? '', disabled: true }
    return baseUrl === undefined ? undefined : { baseUrl, disabled: false }
  }
}

/**
 * The providers of the user's configuration `file`, with their keys looked up in the environment
 * and `credentials` (see `findKey`), read anew at every call so that a change (ours, `dsh-acp
 * setup`'s, the user's editor's) shows at once. A file that cannot be read lists no providers.
 */
export function providerSettings(
  file: string,
  credentials: string,
  env: NodeJS.ProcessEnv = process.env,
): ProviderSettings {
  const read = () => readProviders(file)
  return {
    list() {
      const { providers, required } = read()
      return Object.entries(providers).map(([providerId, entry]) => ({
        providerId,
        supported: [...SUPPORTED_API_TYPES],
        required: providerId === required,
        current:
          entry.disabled === true || typeof entry.baseUrl !== 'string'
            ? null
            : { apiType: 'openai', baseUrl: entry.baseUrl },
      }))
    },
    set(change) {
      setProvider(file, credentials, change)
    },
    disable(providerId) {
      disableProvider(file, providerId)
    },
    authStatus(): unstable.AuthStatusResponse {
      const { providers, required } = read()
      const entries = Object.entries(providers)
      if (entries.length === 0) return { state: 'unknown' }
      const accounts = entries.map(([id, entry]) => {
        const hasKey = findKey(id, entry, credentials, env) !== undefined
        const keyNote = !needsKey(entry) ? 'no key needed' : hasKey ? 'API key set' : 'no API key'
        return {
          label: `${entry.title ?? id}: ${keyNote}`,
          active: entry.disabled !== true && (hasKey || !needsKey(entry)),
          _meta: { dsh: { providerId: id, hasKey, keyRequired: needsKey(entry) } },
        }
      })
      const enabled = entries.filter(([id, entry]) => entry.disabled !== true || id === required)
      const inEffect = enabled.filter(([id]) => required === undefined || id === required)
      const needing = inEffect.filter(([, entry]) => needsKey(entry))
      const state =
        needing.length === 0
          ? 'not_required'
          : needing.every(([id, entry]) => findKey(id, entry, credentials, env) !== undefined)
            ? 'authenticated'
            : 'unauthenticated'
      return { state, accounts }
    },
  }
}
