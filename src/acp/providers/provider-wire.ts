import type * as unstable from '@agentclientprotocol/sdk/unstable'

/** Why a provider change was refused, in words for the user (never holding a key): -32602. */
export class ProviderRefusal extends Error {}

/** What `providers/set` asks for, after the ACP schema's checks. */
export interface ProviderChange {
  readonly providerId: string
  readonly apiType: string
  readonly baseUrl: string
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * The configured providers and whether they hold keys (a port: the process reads and writes its
 * configuration files, see process/config/providers/provider-settings.ts). Nothing here ever returns a key.
 */
export interface ProviderSettings {
  /** The providers as `providers/list` gives them, read now. */
  list(): unstable.ProviderInfo[]
  /** Applies `providers/set`; throws ProviderRefusal for what cannot be applied. */
  set(change: ProviderChange): void
  /** Applies `providers/disable`; throws ProviderRefusal for what cannot be applied. */
  disable(providerId: string): void
  /** The answer to `auth/status`, read now: which providers have a key, never the key. */
  authStatus(): unstable.AuthStatusResponse
}

/** No configuration file: no providers to list or change; the state is unknown. */
export const NO_PROVIDERS: ProviderSettings = {
  list: () => [],
  set: () => {
    throw new ProviderRefusal('this agent runs without a configuration file: there is no provider to set')
  },
  disable: () => {
    throw new ProviderRefusal('this agent runs without a configuration file: there is no provider to disable')
  },
  authStatus: () => ({ state: 'unknown' }),
}
