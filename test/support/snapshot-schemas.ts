import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

/**
 * The JSON Schemas we publish in `schemas/`, compiled with ajv (2020-12, formats checked, unknown
 * `x-` annotation keywords allowed). `publishedSchemaErrors` returns readable errors, [] for valid.
 */

// ajv-formats is CJS with `exports.default`; under NodeNext its default import is the whole module.
const addFormats = addFormatsModule.default

export const SCHEMA_DIR = resolve(import.meta.dirname, '../../schemas')

export type PublishedSchema = 'acp-meta' | 'events' | 'config' | 'session-file' | 'transcript'

const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false })
addFormats(ajv)
const raw = new Map<PublishedSchema, Record<string, unknown>>()
for (const name of ['acp-meta', 'events', 'config', 'session-file', 'transcript'] as const) {
  const schema = JSON.parse(readFileSync(resolve(SCHEMA_DIR, `${name}.schema.json`), 'utf8'))
  raw.set(name, schema)
  ajv.addSchema(schema, name)
}

/** The parsed schema file. */
export function publishedSchema(name: PublishedSchema): Record<string, unknown> {
  return raw.get(name) as Record<string, unknown>
}

const compiled = new Map<string, ValidateFunction>()

/** Errors of `value` against `schemas/<name>.schema.json`, or its `$defs/<def>` when given. */
export function publishedSchemaErrors(name: PublishedSchema, value: unknown, def?: string): string[] {
  const ref = def === undefined ? name : `${name}#/$defs/${def}`
  let validate = compiled.get(ref)
  if (!validate) {
    validate = ajv.getSchema(ref)
    if (!validate) throw new Error(`no schema ${ref}`)
    compiled.set(ref, validate)
  }
  if (validate(value)) return []
  return (validate.errors ?? []).map((e) => `${ref}${e.instancePath} ${e.message ?? 'invalid'}`)
}
