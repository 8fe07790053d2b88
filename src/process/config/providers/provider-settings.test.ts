import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { validateAcpDefinition } from '../../../../test/support/acp-schema.js'
import { storeKey } from './credentials.js'
import { providerSettings } from './provider-settings.js'

const KEY = 'sk-settings-SECRET-0d2e'

function files(config?: unknown): { file: string; credentials: string } {
  const dir = join(mkdtempSync(join(tmpdir(), 'dsh-acp-provset-')), 'dsh-acp')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, 'config.json')
  if (config !== undefined) writeFileSync(file, JSON.stringify(config))
  return { file, credentials: join(dir, 'credentials.json') }
}

const CONFIG = {
  providers: {
    cloud: { baseUrl: 'https://api.example/v1', apiKeyEnv: 'CLOUD_KEY', models: [{ name: 'm' }] },
    local: { baseUrl: 'http://127.0.0.1:8080/v1', keyRequired: false, models: [{ name: 'q' }] },
  },
  defaultModel: 'cloud/m',
}

describe('provider settings read from the files', () => {
  it('reports per provider whether it has a key (environment or credentials.json), never the key', () => {
    const { file, credentials } = files(CONFIG)
    const none = providerSettings(file, credentials, {})
    expect(validateAcpDefinition('AuthStatusResponse', none.authStatus())).toEqual([])
    expect(none.authStatus().state).toBe('unauthenticated')
    const fromEnv = providerSettings(file, credentials, { CLOUD_KEY: KEY }).authStatus()
    expect(fromEnv.state).toBe('authenticated')
    expect(JSON.stringify(fromEnv)).not.toContain(KEY)
    storeKey(credentials, 'cloud', KEY)
    const stored = providerSettings(file, credentials, {}).authStatus()
    expect(stored.state).toBe('authenticated')
    expect(stored.accounts?.map((a) => [a.label, a.active])).toEqual([
      ['cloud: API key set', true],
      ['local: no key needed', true],
    ])
    expect(JSON.stringify(stored)).not.toContain(KEY)
  })

  it('is not_required when the provider in effect needs no key, unknown without providers', () => {
    const { file, credentials } = files({ ...CONFIG, defaultModel: 'local/q' })
    expect(providerSettings(file, credentials, {}).authStatus().state).toBe('not_required')
    const empty = files()
    expect(providerSettings(empty.file, empty.credentials, {}).authStatus()).toEqual({ state: 'unknown' })
    expect(providerSettings(empty.file, empty.credentials, {}).list()).toEqual([])
  })

  it('lists valid ProviderInfo: the defaultModel provider required, a disabled one with current null', () => {
    const { file, credentials } = files({
      ...CONFIG,
      providers: { ...CONFIG.providers, local: { ...CONFIG.providers.local, disabled: true } },
    })
    const providers = providerSettings(file, credentials, {}).list()
    expect(validateAcpDefinition('ListProvidersResponse', { providers })).toEqual([])
    expect(providers.map((p) => [p.providerId, p.required, p.current ?? null])).toEqual([
      ['cloud', true, { apiType: 'openai', baseUrl: 'https://api.example/v1' }],
      ['local', false, null],
    ])
  })
})
