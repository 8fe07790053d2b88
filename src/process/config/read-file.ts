import type { ErrorObject } from 'ajv'
import type { SchemaValidator } from '../../lib/schema-validator.js'
import type { ProjectConfigFile, UserConfigFile } from './file-types.js'
import type { ConfigProblem } from './problems.js'
import { readSmallFile } from './small-file.js'

/** What reading one configuration file gave: its value when valid, else why not. */
export type ReadResult<T> =
  | { readonly state: 'absent' }
  | { readonly state: 'valid'; readonly value: T }
  | { readonly state: 'invalid'; readonly problems: readonly ConfigProblem[] }

type Kind = 'user' | 'project'

interface Validators {
  readonly user: SchemaValidator<UserConfigFile>
  readonly project: SchemaValidator<ProjectConfigFile>
}

let validators: Promise<Validators> | undefined

/**
 * The validators, generated from file-schema.ts (no schema is compiled at start), loaded only
 * when a file exists: a run without configuration files does not read their code.
 */
function loadValidators(): Promise<Validators> {
  validators ??= import('./file-validators.gen.js').then((module) => ({
    user: module.validateUserFile,
    project: module.validateProjectFile,
  }))
  return validators
}

/** Property names that hold a secret: never allowed in a project file. */
const KEY_NAMES = /^(api[-_]?key|key|token|secret|password|authorization|credentials?)$/i

/**
 * Reads and checks `file` (`kind` says which schema): absent when there is no such file; every
 * problem with its JSON pointer otherwise. Only a regular file of at most 1 MiB is read, without
 * blocking (see `readSmallFile`): anything else is one problem naming it. A project file holding providers or anything named like
 * a key is refused as a whole, saying so.
 */
export async function readConfigFile(file: string, kind: 'user'): Promise<ReadResult<UserConfigFile>>
export async function readConfigFile(file: string, kind: 'project'): Promise<ReadResult<ProjectConfigFile>>
export async function readConfigFile(file: string, kind: Kind): Promise<ReadResult<unknown>> {
  const read = readSmallFile(file)
  if (read.state === 'absent') return { state: 'absent' }
  if (read.state === 'refused') return invalid(file, '', read.reason)
  let value: unknown
  try {
    value = JSON.parse(read.text)
  } catch (error) {
    return invalid(file, '', `is not valid JSON: ${(error as Error).message}`)
  }
  if (kind === 'project') {
    const keys = keyProperties(value, '')
    if (keys.length > 0) {
      return {
        state: 'invalid',
        problems: keys.map((pointer) => ({
          file,
          pointer,
          message: pointer.endsWith('/providers')
            ? "providers (and their keys) are not allowed in a project's file: configure them in your own config.json (dsh-acp setup)"
            : "an API key never goes in a project's file (it would be committed with the project): keep it in an environment variable or in credentials.json (dsh-acp setup)",
        })),
      }
    }
  }
  const validate = (await loadValidators())[kind]
  if (validate(value)) return { state: 'valid', value }
  return { state: 'invalid', problems: problemsOf(file, validate.errors ?? []) }
}

function invalid(file: string, pointer: string, message: string): ReadResult<never> {
  return { state: 'invalid', problems: [{ file, pointer, message }] }
}

/** Pointers of the properties (at any depth) that hold providers or secrets. */
function keyProperties(value: unknown, pointer: string): string[] {
  if (typeof value !== 'object' || value === null) return []
  const found: string[] = []
  for (const [key, inner] of Object.entries(value)) {
    const at = `${pointer}/${escapePointer(key)}`
    if ((pointer === '' && key === 'providers') || KEY_NAMES.test(key)) found.push(at)
    else found.push(...keyProperties(inner, at))
  }
  return found
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1')
}

/**
 * ajv's errors in words, one per place: a value that matches no branch of a `oneOf` is one
 * problem (not one per branch), and errors inside it are dropped.
 */
function problemsOf(file: string, errors: readonly ErrorObject[]): ConfigProblem[] {
  const oneOf = errors.filter((e) => e.keyword === 'oneOf').map((e) => e.instancePath)
  const problems = new Map<string, ConfigProblem>()
  for (const error of errors) {
    const inside = oneOf.some(
      (path) =>
        error.keyword !== 'oneOf' &&
        (error.instancePath === path || error.instancePath.startsWith(`${path}/`)),
    )
    if (inside) continue
    const problem = describe(file, error)
    problems.set(`${problem.pointer} ${problem.message}`, problem)
  }
  return [...problems.values()]
}

function describe(file: string, error: ErrorObject): ConfigProblem {
  const params = error.params as Record<string, unknown>
  const at = error.instancePath
  switch (error.keyword) {
    case 'additionalProperties': {
      const name = String(params.additionalProperty)
      const allowed = Object.keys((error.parentSchema?.properties as object | undefined) ?? {})
      return {
        file,
        pointer: `${at}/${escapePointer(name)}`,
        message: `unknown property ${JSON.stringify(name)}${allowed.length > 0 ? ` (expected one of ${allowed.join(', ')})` : ''}`,
      }
    }
    case 'required':
      return {
        file,
        pointer: at,
        message: `the property ${JSON.stringify(params.missingProperty)} is required`,
      }
    case 'oneOf':
      return {
        file,
        pointer: at,
        message:
          'expected an MCP server: {"name", "command", "args"?, "env"?} (stdio) or {"type": "http", "name", "url", "headers"?}',
      }
    case 'propertyNames':
      return {
        file,
        pointer: `${at}/${escapePointer(String(params.propertyName))}`,
        message: 'a provider id is lowercase letters, digits, ".", "_" or "-" (at most 64)',
      }
    case 'type':
      return { file, pointer: at, message: `expected ${article(String(params.type))}` }
    case 'enum':
      return {
        file,
        pointer: at,
        message: `expected one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      }
    case 'minimum':
      return { file, pointer: at, message: `expected a number of at least ${params.limit}` }
    case 'minLength':
      return { file, pointer: at, message: 'expected a non-empty string' }
    case 'minItems':
      return { file, pointer: at, message: `expected at least ${params.limit} item(s)` }
    case 'pattern':
      return { file, pointer: at, message: `expected a string matching ${params.pattern}` }
    default:
      return { file, pointer: at, message: `expected a value that ${error.message ?? 'matches the schema'}` }
  }
}

function article(type: string): string {
  return type
    .split(',')
    .map((t) => (t === 'integer' || t === 'object' || t === 'array' ? `an ${t}` : `a ${t}`))
    .join(' or ')
}
