import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { ErrorObject, ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { isObject } from '../../lib/is.js'

/**
 * Validation against the official ACP JSON schemas shipped in `@agentclientprotocol/sdk`, for
 * protocol version 1 and for the v2 draft: each version's stable schema and its unstable draft (a
 * superset of the stable one). Used by
 * `dsh-acp replay --validate` and by our own tests. Both functions return human-readable error
 * strings: an empty array means valid.
 */

// ajv-formats is CJS with `exports.default`; under NodeNext its default import is the whole module.
const addFormats = addFormatsModule.default

/**
 * Which schema: `stable`, `unstable`, or `auto`: the stable schema for the methods it defines, the
 * unstable draft for the rest; a message of a stable method that only the unstable draft accepts
 * (an unstable shape, e.g. a `subagent_update` session update) passes too.
 */
export type AcpSchemaVariant = 'stable' | 'unstable' | 'auto'

type JsonSchema = { $defs: Record<string, Record<string, unknown>> } & Record<string, unknown>

interface MethodDefs {
  request?: string
  response?: string
  notification?: string
}

interface LoadedSchema {
  readonly id: string
  readonly schema: JsonSchema
  readonly ajv: Ajv2020
  /** ACP method name -> the `$defs` that describe its params and result, read from `x-method`. */
  readonly methods: Map<string, MethodDefs>
  readonly compiled: Map<string, ValidateFunction>
}

/** The ACP protocol versions whose schemas the SDK ships. */
export type AcpProtocolVersion = 1 | 2

const require = createRequire(import.meta.url)
const loaded = new Map<string, LoadedSchema>()

const integerIn = (min: number, max: number) => ({
  type: 'number' as const,
  validate: (n: number) => Number.isInteger(n) && n >= min && n <= max,
})

function load(variant: 'stable' | 'unstable', version: AcpProtocolVersion = 1): LoadedSchema {
  const id = `https://agentclientprotocol.com/schema/v${version}/${variant}.json`
  const found = loaded.get(id)
  if (found) return found
  const file = variant === 'stable' ? 'schema.json' : 'schema.unstable.json'
  const path = require.resolve(`@agentclientprotocol/sdk/schema/v${version}/${file}`)
  const schema = JSON.parse(readFileSync(path, 'utf8')) as JsonSchema
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false })
  addFormats(ajv)
  ajv.addFormat('int32', integerIn(-(2 ** 31), 2 ** 31 - 1))
  ajv.addFormat('int64', integerIn(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER))
  ajv.addFormat('uint16', integerIn(0, 2 ** 16 - 1))
  ajv.addFormat('uint32', integerIn(0, 2 ** 32 - 1))
  ajv.addFormat('uint64', integerIn(0, Number.MAX_SAFE_INTEGER))
  ajv.addFormat('double', { type: 'number', validate: (n: number) => Number.isFinite(n) })
  ajv.addSchema({ ...schema, $id: id })
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
  const result = { id, schema, ajv, methods, compiled: new Map<string, ValidateFunction>() }
  loaded.set(id, result)
  return result
}

function resolveVariant(
  variant: AcpSchemaVariant,
  method: string | undefined,
  version: AcpProtocolVersion = 1,
): LoadedSchema {
  if (variant !== 'auto') return load(variant, version)
  const stable = load('stable', version)
  return method === undefined || stable.methods.has(method) ? stable : load('unstable', version)
}

/** The `$defs` names of a method's params and result, or undefined when the schema lacks it. */
export function acpMethod(
  method: string,
  variant: AcpSchemaVariant = 'unstable',
): Readonly<MethodDefs> | undefined {
  return resolveVariant(variant, method).methods.get(method)
}

function validatorFor(schema: LoadedSchema, ref: string): ValidateFunction {
  const validate = schema.compiled.get(ref)
  if (validate) return validate
  const found = schema.ajv.getSchema(`${schema.id}${ref}`)
  if (!found) throw new Error(`the ACP schema has no ${ref}`)
  schema.compiled.set(ref, found)
  return found
}

function describe(errors: readonly ErrorObject[] | null | undefined, where: string): string[] {
  if (!errors || errors.length === 0) return [`${where}: invalid`]
  return errors.map((e) => `${where}${e.instancePath || ''} ${e.message ?? 'is invalid'} (${e.schemaPath})`)
}

function check(schema: LoadedSchema, ref: string, value: unknown, where: string): string[] {
  const validate = validatorFor(schema, ref)
  return validate(value) ? [] : describe(validate.errors, where)
}

/** Errors of `value` against the unstable schema's `$defs/<name>`; throws if there is no such definition. */
export function validateAcpDefinition(name: string, value: unknown): string[] {
  const schema = load('unstable')
  if (!Object.hasOwn(schema.schema.$defs, name)) throw new Error(`the ACP schema has no $defs/${name}`)
  return check(schema, `#/$defs/${name}`, value, name)
}

export interface MessageOptions {
  /**
   * For a response: the method of the request it answers, so its `result` is checked against that
   * method's response definition (without it, only against the union of all results).
   */
  readonly method?: string
  /** Default `unstable`. */
  readonly schema?: AcpSchemaVariant
  /** The protocol version the connection chose at `initialize`; default 1. */
  readonly protocol?: AcpProtocolVersion
}

/**
 * Errors of one JSON-RPC message (request, notification or response, in either direction) against
 * the ACP schema: the envelope against the schema's root, then `params` against the definition of
 * its method (`x-method`), or a response's `result`/`error` against `MessageOptions.method`'s
 * response definition or `$defs/Error`. Unknown methods are errors unless they are extension
 * methods (leading `_`) or methods of an ACP draft no schema has yet ({@link DRAFT_METHODS}).
 */
export function validateAcpMessage(message: unknown, options: MessageOptions = {}): string[] {
  if (options.schema !== 'auto') return validateWith(message, options)
  const errors = validateWith(message, options)
  if (errors.length === 0) return errors
  return validateWith(message, { ...options, schema: 'unstable' }).length === 0 ? [] : errors
}

/** Methods of ACP drafts no published schema defines (the workspace-trust RFD's `trust/apply`; schema 1.31's `session/options`, after SDK 2.4.0). */
const DRAFT_METHODS: ReadonlySet<string> = new Set(['trust/apply', 'session/options'])

/** A method the schema cannot say anything about: an extension's or a draft's. */
function isUnschemedMethod(method: string): boolean {
  return method.startsWith('_') || DRAFT_METHODS.has(method)
}

function validateWith(message: unknown, options: MessageOptions): string[] {
  if (!isObject(message)) return ['message: not a JSON object']
  const method = typeof message.method === 'string' ? message.method : options.method
  const schema = resolveVariant(options.schema ?? 'unstable', method, options.protocol)
  const errors: string[] = []
  if (message.jsonrpc !== '2.0') errors.push('message.jsonrpc: must be "2.0"')
  const rootErrors = check(schema, '#', message, 'message')
  const hasId = Object.hasOwn(message, 'id')
  if (typeof message.method === 'string') {
    const called = message.method
    const defs = schema.methods.get(called)
    const def = hasId ? defs?.request : defs?.notification
    if (def) errors.push(...check(schema, `#/$defs/${def}`, message.params, `${called} params`))
    else if (!isUnschemedMethod(called)) {
      errors.push(`message.method: ${called} is not an ACP ${hasId ? 'request' : 'notification'}`)
    }
    if (rootErrors.length > 0 && errors.length === 0) errors.push(...rootErrors)
    return errors
  }
  if (!hasId) return [...errors, 'message: neither a request, a notification nor a response']
  const hasResult = Object.hasOwn(message, 'result')
  const hasError = Object.hasOwn(message, 'error')
  if (hasResult === hasError) return [...errors, 'response: needs exactly one of result and error']
  errors.push(...check(schema, '#/$defs/RequestId', message.id, 'response.id'))
  if (hasError) return [...errors, ...check(schema, '#/$defs/Error', message.error, 'response.error')]
  if (options.method !== undefined) {
    const def = schema.methods.get(options.method)?.response
    if (def)
      return [...errors, ...check(schema, `#/$defs/${def}`, message.result, `${options.method} result`)]
    if (!isUnschemedMethod(options.method)) {
      return [...errors, `options.method: ${options.method} has no ACP response definition`]
    }
    return errors
  }
  return rootErrors.length > 0 ? [...errors, ...rootErrors] : errors
}
