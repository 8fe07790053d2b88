import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { ErrorObject, ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

/**
 * Validation against the official ACP JSON schema (`@agentclientprotocol/sdk`, v1, unstable
 * draft, which is a superset of the stable one). Every wire message a test sees should pass
 * {@link validateAcpMessage}; single values can be checked with {@link validateAcpDefinition}.
 * Both return human-readable error strings: an empty array means valid.
 */

// ajv-formats is CJS with `exports.default`; under NodeNext its default import is the whole module.
const addFormats = addFormatsModule.default

const require = createRequire(import.meta.url)
const SCHEMA_PATH = require.resolve('@agentclientprotocol/sdk/schema/v1/schema.unstable.json')
const SCHEMA_ID = 'https://agentclientprotocol.com/schema/v1/unstable.json'

type JsonSchema = { $defs: Record<string, Record<string, unknown>> } & Record<string, unknown>

const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as JsonSchema

const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false })
addFormats(ajv)
const integerIn = (min: number, max: number) => ({
  type: 'number' as const,
  validate: (n: number) => Number.isInteger(n) && n >= min && n <= max,
})
ajv.addFormat('int32', integerIn(-(2 ** 31), 2 ** 31 - 1))
ajv.addFormat('int64', integerIn(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER))
ajv.addFormat('uint16', integerIn(0, 2 ** 16 - 1))
ajv.addFormat('uint32', integerIn(0, 2 ** 32 - 1))
ajv.addFormat('uint64', integerIn(0, Number.MAX_SAFE_INTEGER))
ajv.addFormat('double', { type: 'number', validate: (n: number) => Number.isFinite(n) })
ajv.addSchema({ ...schema, $id: SCHEMA_ID })

/** Names of every `$defs` entry of the schema (e.g. `SessionNotification`, `PromptResponse`). */
export const acpDefinitionNames: readonly string[] = Object.keys(schema.$defs)

interface MethodDefs {
  request?: string
  response?: string
  notification?: string
}

/** ACP method name -> the `$defs` that describe its params and result, read from `x-method`. */
const methods = new Map<string, MethodDefs>()
for (const [name, def] of Object.entries(schema.$defs)) {
  const method = def['x-method']
  if (typeof method !== 'string') continue
  const entry = methods.get(method) ?? {}
  if (name.endsWith('Request')) entry.request = name
  else if (name.endsWith('Response')) entry.response = name
  else entry.notification = name
  methods.set(method, entry)
}

/** The ACP methods the schema knows, with the `$defs` names of their params and result. */
export function acpMethod(method: string): Readonly<MethodDefs> | undefined {
  return methods.get(method)
}

const compiled = new Map<string, ValidateFunction>()

function validatorFor(ref: string): ValidateFunction {
  const validate = compiled.get(ref)
  if (!validate) {
    const found = ajv.getSchema(`${SCHEMA_ID}${ref}`)
    if (!found) throw new Error(`the ACP schema has no ${ref}`)
    compiled.set(ref, found)
    return found
  }
  return validate
}

function describe(errors: readonly ErrorObject[] | null | undefined, where: string): string[] {
  if (!errors || errors.length === 0) return [`${where}: invalid`]
  return errors.map((e) => `${where}${e.instancePath || ''} ${e.message ?? 'is invalid'} (${e.schemaPath})`)
}

function check(ref: string, value: unknown, where: string): string[] {
  const validate = validatorFor(ref)
  return validate(value) ? [] : describe(validate.errors, where)
}

/** Errors of `value` against the schema's `$defs/<name>`; throws if there is no such definition. */
export function validateAcpDefinition(name: string, value: unknown): string[] {
  if (!Object.hasOwn(schema.$defs, name)) throw new Error(`the ACP schema has no $defs/${name}`)
  return check(`#/$defs/${name}`, value, name)
}

export interface MessageOptions {
  /**
   * For a response: the method of the request it answers, so its `result` is checked against that
   * method's response definition (without it, only against the union of all results).
   */
  readonly method?: string
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * Errors of one JSON-RPC message (request, notification or response, in either direction) against
 * the ACP schema: the envelope against the schema's root, then `params` against the definition of
 * its method (`x-method`), or a response's `result`/`error` against `MessageOptions.method`'s
 * response definition or `$defs/Error`. Unknown methods are errors unless they are extension
 * methods (leading `_`).
 */
export function validateAcpMessage(message: unknown, options: MessageOptions = {}): string[] {
  if (!isObject(message)) return ['message: not a JSON object']
  const errors: string[] = []
  if (message.jsonrpc !== '2.0') errors.push('message.jsonrpc: must be "2.0"')
  const rootErrors = check('#', message, 'message')
  const hasId = Object.hasOwn(message, 'id')
  if (typeof message.method === 'string') {
    const method = message.method
    const defs = methods.get(method)
    const def = hasId ? defs?.request : defs?.notification
    if (def) errors.push(...check(`#/$defs/${def}`, message.params, `${method} params`))
    else if (!method.startsWith('_')) {
      errors.push(`message.method: ${method} is not an ACP ${hasId ? 'request' : 'notification'}`)
    }
    if (rootErrors.length > 0 && errors.length === 0) errors.push(...rootErrors)
    return errors
  }
  if (!hasId) return [...errors, 'message: neither a request, a notification nor a response']
  const hasResult = Object.hasOwn(message, 'result')
  const hasError = Object.hasOwn(message, 'error')
  if (hasResult === hasError) return [...errors, 'response: needs exactly one of result and error']
  errors.push(...check('#/$defs/RequestId', message.id, 'response.id'))
  if (hasError) return [...errors, ...check('#/$defs/Error', message.error, 'response.error')]
  if (options.method !== undefined) {
    const def = methods.get(options.method)?.response
    if (def) return [...errors, ...check(`#/$defs/${def}`, message.result, `${options.method} result`)]
    if (!options.method.startsWith('_')) {
      return [...errors, `options.method: ${options.method} has no ACP response definition`]
    }
    return errors
  }
  return rootErrors.length > 0 ? [...errors, ...rootErrors] : errors
}
