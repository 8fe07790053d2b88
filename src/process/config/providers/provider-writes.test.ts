import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ProviderRefusal } from '../../../acp/providers/provider-wire.js'
import { configuredModels } from '../file-models.js'
import { readConfigFile } from '../read-file.js'
import { readCredentials } from './credentials.js'
import { disableProvider, setProvider } from './provider-writes.js'

const KEY = 'sk-provider-SECRET-51c0'

/** A config dir with `config` written as the user's file (mode 0644, as an editor leaves it). */
function configDir(config: unknown): { file: string; credentials: string; dir: string } {
  const dir = join(mkdtempSync(join(tmpdir(), 'dsh-acp-prov-')), 'dsh-acp')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, 'config.json')
  writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config, null, 2), { mode: 0o644 })
  return { file, credentials: join(dir, 'credentials.json'), dir }
}

const USER_CONFIG = {
  $schema: 'https://example.invalid/schema.json',
  providers: {
    deepseek: {
      title: 'DeepSeek',
      baseUrl: 'https://api.deepseek.com/v1',
      apiKeyEnv: 'DEEPSEEK_API_KEY',
      models: [{ name: 'deepseek-chat', contextWindow: 64000 }],
    },
    local: { baseUrl: 'http://127.0.0.1:11434/v1', keyRequired: false, models: [{ name: 'qwen' }] },
  },
  defaultModel: 'deepseek/deepseek-chat',
  defaultMode: 'ask',
  limits: { maxSteps: 40 },
}

const json = (file: string) => JSON.parse(readFileSync(file, 'utf8'))
const mode = (file: string) => statSync(file).mode & 0o777
const refusal = (change: () => void): string => {
  try {
    change()
  } catch (error) {
    if (error instanceof ProviderRefusal) return error.message
    throw error
  }
  throw new Error('expected a ProviderRefusal')
}

describe('providers/set and providers/disable written into config.json', () => {
  it('changes only the baseUrl, keeps every other field, writes 0600 and stays valid against the file schema', async () => {
    const { file, credentials } = configDir(USER_CONFIG)
    setProvider(file, credentials, {
      providerId: 'local',
      apiType: 'openai',
      baseUrl: 'http://10.0.0.2:8000/v1',
    })
    const after = json(file)
    expect(after).toEqual({
      ...USER_CONFIG,
      providers: {
        ...USER_CONFIG.providers,
        local: { ...USER_CONFIG.providers.local, baseUrl: 'http://10.0.0.2:8000/v1' },
      },
    })
    expect(mode(file)).toBe(0o600)
    expect((await readConfigFile(file, 'user')).state).toBe('valid')
    expect(readdirSync(join(file, '..'))).toEqual(['config.json'])
  })

  it('replaces the file by a rename: a reader of the old file sees it whole, never half written', () => {
    const { file, credentials } = configDir(USER_CONFIG)
    const before = readFileSync(file, 'utf8')
    const fd = openSync(file, 'r')
    try {
      setProvider(file, credentials, {
        providerId: 'deepseek',
        apiType: 'openai',
        baseUrl: 'https://proxy.example/v1',
      })
      const buffer = Buffer.alloc(before.length + 10)
      const got = readSync(fd, buffer, 0, buffer.length, 0)
      expect(buffer.subarray(0, got).toString('utf8')).toBe(before)
    } finally {
      closeSync(fd)
    }
    expect(json(file).providers.deepseek.baseUrl).toBe('https://proxy.example/v1')
  })

  it('keeps unknown keys of any shape, at the top and inside the provider (property)', () => {
    const key = fc
      .string({ minLength: 1, maxLength: 12 })
      .filter((k) => !['providers', '__proto__'].includes(k))
    fc.assert(
      fc.property(
        fc.dictionary(key, fc.jsonValue()),
        fc.dictionary(
          key.filter((k) => !['baseUrl', 'disabled'].includes(k)),
          fc.jsonValue(),
        ),
        (top, inner) => {
          const config = {
            ...top,
            providers: { p: { ...inner, baseUrl: 'http://a.example/v1', models: [{ name: 'm' }] } },
          }
          const { file, credentials } = configDir(config)
          setProvider(file, credentials, {
            providerId: 'p',
            apiType: 'openai',
            baseUrl: 'https://b.example/v1',
          })
          const expected = JSON.parse(
            JSON.stringify({
              ...config,
              providers: { p: { ...config.providers.p, baseUrl: 'https://b.example/v1' } },
            }),
          )
          expect(json(file)).toEqual(expected)
        },
      ),
      { numRuns: 40 },
    )
  })

  it('stores an Authorization: Bearer header as the provider key in credentials.json (0600), never in config.json', () => {
    const { file, credentials } = configDir(USER_CONFIG)
    setProvider(file, credentials, {
      providerId: 'deepseek',
      apiType: 'openai',
      baseUrl: 'https://api.deepseek.com/v1',
      headers: { Authorization: `Bearer ${KEY}` },
    })
    expect(readFileSync(file, 'utf8')).not.toContain(KEY)
    expect(readCredentials(credentials)).toEqual({ keys: { deepseek: KEY }, problems: [] })
    expect(mode(credentials)).toBe(0o600)
    // An empty headers map is the full map without authorization: the stored key goes.
    setProvider(file, credentials, {
      providerId: 'deepseek',
      apiType: 'openai',
      baseUrl: 'https://api.deepseek.com/v1',
      headers: {},
    })
    expect(readCredentials(credentials).keys).toEqual({})
  })

  it('refuses other apiTypes, other headers, non-http URLs, unknown or malformed ids, and leaves the files as they were', () => {
    const { file, credentials, dir } = configDir(USER_CONFIG)
    const before = readFileSync(file, 'utf8')
    const set = (change: Partial<Parameters<typeof setProvider>[2]>) => () =>
      setProvider(file, credentials, {
        providerId: 'deepseek',
        apiType: 'openai',
        baseUrl: 'https://x.example/v1',
        ...change,
      })
    expect(refusal(set({ apiType: 'anthropic' }))).toMatch(/apiType "anthropic" is not supported.*"openai"/)
    expect(refusal(set({ apiType: 'bedrock' }))).toMatch(/not supported/)
    expect(refusal(set({ baseUrl: 'ftp://x.example' }))).toMatch(/http/)
    expect(refusal(set({ baseUrl: '' }))).toMatch(/http/)
    expect(refusal(set({ headers: { 'X-Api-Key': KEY } }))).toMatch(/header "X-Api-Key" is not supported/)
    expect(refusal(set({ headers: { Authorization: `Basic ${KEY}` } }))).toMatch(/Bearer/)
    expect(refusal(set({ providerId: 'nobody' }))).toMatch(/no provider "nobody"/)
    expect(refusal(set({ providerId: 'Bad/Id' }))).toMatch(/provider id/)
    expect(refusal(set({ providerId: '__proto__' }))).toMatch(/provider/)
    expect(refusal(() => disableProvider(file, 'nobody'))).toMatch(/no provider/)
    for (const message of [
      refusal(set({ headers: { 'X-Api-Key': KEY } })),
      refusal(set({ headers: { Authorization: `Basic ${KEY}` } })),
    ])
      expect(message).not.toContain(KEY)
    expect(readFileSync(file, 'utf8')).toBe(before)
    expect(readdirSync(dir)).toEqual(['config.json'])
  })

  it('refuses a file that is not JSON without quoting it, and leaves it', () => {
    const { file, credentials } = configDir(`{"providers": {"p": ${KEY}`)
    const message = refusal(() =>
      setProvider(file, credentials, { providerId: 'p', apiType: 'openai', baseUrl: 'https://x.example' }),
    )
    expect(message).toMatch(/not valid JSON/)
    expect(message).not.toContain(KEY)
    expect(readFileSync(file, 'utf8')).toBe(`{"providers": {"p": ${KEY}`)
  })

  it('disable hides the provider models until a set enables it again; the defaultModel provider cannot be disabled', async () => {
    const { file, credentials } = configDir(USER_CONFIG)
    disableProvider(file, 'local')
    expect(json(file).providers.local).toEqual({ ...USER_CONFIG.providers.local, disabled: true })
    expect((await readConfigFile(file, 'user')).state).toBe('valid')
    expect(configuredModels(json(file).providers).map((m) => m.id)).toEqual(['deepseek/deepseek-chat'])
    setProvider(file, credentials, {
      providerId: 'local',
      apiType: 'openai',
      baseUrl: 'http://127.0.0.1:11434/v1',
    })
    expect(json(file)).toEqual(USER_CONFIG)
    expect(refusal(() => disableProvider(file, 'deepseek'))).toMatch(/defaultModel/)
    expect(json(file)).toEqual(USER_CONFIG)
  })
})
