import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { type ProviderChange, ProviderRefusal } from '../../../acp/providers/provider-wire.js'
import { PROVIDER_ID_PATTERN } from '../file-schema.js'
import { readSmallFile } from '../small-file.js'
import { removeKeys, storeKey } from './credentials.js'

/** The one protocol this agent's model client speaks (OpenAI chat completions). */
export const SUPPORTED_API_TYPES = ['openai'] as const

type JsonObject = Record<string, unknown>

/**
 * Points provider `change.providerId` of the user's `file` at `change.baseUrl` and enables it
 * (removes its `disabled`), keeping its models and every other field and unknown key of the file.
 * An `Authorization: Bearer KEY` header becomes the provider's stored key in `credentials` (never
 * the config file); a header without one leaves the stored key, an empty `headers` forgets it.
 * Refuses (ProviderRefusal) another `apiType`, a URL that is not http(s), any other header,
 * and a provider the file does not have (a new one needs its models: `dsh-acp setup`). Written
 * atomically (see `writePrivateJson`).
 */
export function setProvider(file: string, credentials: string, change: ProviderChange): void {
  const { providerId, apiType, baseUrl, headers } = change
  if (!(SUPPORTED_API_TYPES as readonly string[]).includes(apiType))
    throw new ProviderRefusal(
      `apiType ${JSON.stringify(apiType)} is not supported: this agent speaks only "openai" (OpenAI-compatible chat completions)`,
    )
  if (!/^https?:\/\/\S+$/.test(baseUrl))
    throw new ProviderRefusal('baseUrl must be an http:// or https:// URL')
  const key = headers === undefined ? undefined : bearerKey(headers)
  const config = readObject(file)
  const entry = providerEntry(config, providerId)
  entry.baseUrl = baseUrl
  delete entry.disabled
  writePrivateJson(file, config)
  if (key !== undefined) storeKey(credentials, providerId, key)
  else if (headers !== undefined) removeKeys(credentials, providerId)
}

/**
 * Marks provider `providerId` of `file` `disabled: true` (its models are no longer offered),
 * keeping everything else. Refuses a provider the file does not have, and `required` ones (the
 * provider of the file's `defaultModel`).
 */
export function disableProvider(file: string, providerId: string): void {
  const config = readObject(file)
  const entry = providerEntry(config, providerId)
  if (requiredProviderOf(config) === providerId)
    throw new ProviderRefusal(
      `provider ${JSON.stringify(providerId)} holds the defaultModel and cannot be disabled: change defaultModel first`,
    )
  entry.disabled = true
  writePrivateJson(file, config)
}

/** The provider the file's `defaultModel` names (`provider/model`), if any. */
export function requiredProviderOf(config: unknown): string | undefined {
  const model = isObject(config) ? config.defaultModel : undefined
  return typeof model === 'string' && model.includes('/') ? model.slice(0, model.indexOf('/')) : undefined
}

/** The key of an `Authorization: Bearer KEY` header; refuses every other header. */
function bearerKey(headers: Readonly<Record<string, string>>): string | undefined {
  let key: string | undefined
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== 'authorization')
      throw new ProviderRefusal(
        `header ${JSON.stringify(name)} is not supported: only "Authorization: Bearer <key>" is (stored as the provider's key in credentials.json)`,
      )
    const match = /^Bearer\s+(\S+)\s*$/i.exec(value)
    if (match?.[1] === undefined) throw new ProviderRefusal('the Authorization header must be "Bearer <key>"')
    key = match[1]
  }
  return key
}

/** The file's JSON object ({} when absent); refuses anything else (its content is never quoted). */
function readObject(file: string): JsonObject {
  const read = readSmallFile(file)
  if (read.state === 'absent') return {}
  if (read.state === 'refused') throw new ProviderRefusal(`${file} ${read.reason}`)
  let value: unknown
  try {
    value = JSON.parse(read.text)
  } catch {
    throw new ProviderRefusal(`${file} is not valid JSON: fix it before changing providers`)
  }
  if (!isObject(value)) throw new ProviderRefusal(`${file} does not hold a JSON object`)
  return value
}

/** The entry of `providerId` in `config` (to change in place); refuses an id the file lacks. */
function providerEntry(config: JsonObject, providerId: string): JsonObject {
  if (!new RegExp(PROVIDER_ID_PATTERN).test(providerId))
    throw new ProviderRefusal('a provider id is lowercase letters, digits, ".", "_" or "-" (at most 64)')
  const providers = config.providers
  const entry =
    isObject(providers) && Object.hasOwn(providers, providerId) ? providers[providerId] : undefined
  if (!isObject(entry))
    throw new ProviderRefusal(
      `no provider ${JSON.stringify(providerId)} in the configuration: add it with its models (dsh-acp setup), then set it`,
    )
  return entry
}

/**
 * Writes `value` to `file` as a temporary file of mode 0600 in the same directory (made 0700 when
 * new), renamed into place: the file is never seen half written or with wider permissions.
 */
export function writePrivateJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  const temp = `${file}.${process.pid}.providers.tmp`
  rmSync(temp, { force: true })
  try {
    writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600, flag: 'wx' })
    chmodSync(temp, 0o600)
    renameSync(temp, file)
  } catch (error) {
    rmSync(temp, { force: true })
    throw error
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
