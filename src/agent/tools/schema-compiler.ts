import { Ajv, type ErrorObject } from 'ajv'
import type { RegExpEngine } from 'ajv/dist/types/index.js'
import { RE2JS } from 're2js'
import type { JsonValue } from '../../session/index.js'

/** Why `input` does not match a compiled schema, or undefined when it does. */
export type InputCheck = (input: JsonValue) => string | undefined

/** Compiles tool input schemas (JSON Schema draft-07); throws when one does not compile. */
export type SchemaCompiler = (schema: { readonly [key: string]: JsonValue }) => InputCheck

/** A compiled schema as a type guard: input it accepts is a `T`, the type the schema describes. */
export interface InputGuard<T> {
  matches(input: JsonValue): input is JsonValue & T
  /** Why `input` does not match, worded as an {@link InputCheck} words it. */
  why(input: JsonValue): string
}

/**
 * `pattern` and `patternProperties` compiled by RE2 (re2js): matching takes time linear in the
 * input whatever the pattern, so a schema from an MCP server cannot stall the event loop. RE2 has
 * no lookaround and no backreferences: a schema using them does not compile (the error names the
 * pattern). ECMAScript syntax RE2 spells otherwise (`\uXXXX`, `\u{X}`, `\cX`, `(?<name>…)`) is
 * translated by re2js's own `translateRegExp`. Differences that remain: `\s` matches ASCII white
 * space only. The one engine for every ajv that compiles schemas a server or the model supplies.
 */
export const RE2_PATTERNS: RegExpEngine = Object.assign(
  (pattern: string) => {
    try {
      return RE2JS.compile(RE2JS.translateRegExp(pattern))
    } catch (error) {
      throw new Error(`pattern ${JSON.stringify(pattern)} is not supported: ${(error as Error).message}`)
    }
  },
  { code: 'RE2JS.compile' },
)

const newAjv = (regExp?: RegExpEngine) =>
  new Ajv({
    strict: false,
    allErrors: false,
    validateSchema: true,
    logger: false,
    ...(regExp && { code: { regExp } }),
  })

/**
 * A compiler with its own ajv instance whose compiled schemas report the first error as
 * `input.path message`, and whose patterns run on RE2. Everything it compiled (ajv keeps every
 * schema and pattern it saw) lives as long as the compiler: give each source of schemas (each MCP
 * connection) its own, so closing the source frees them and two sources may use the same `$id`.
 */
export function createSchemaCompiler(): SchemaCompiler {
  const ajv = newAjv(RE2_PATTERNS)
  return (schema) => {
    const validate = ajv.compile(schema)
    return (input) => (validate(input) ? undefined : reasons(validate.errors))
  }
}

let guards: Ajv | undefined

/**
 * `schema` compiled as a guard for `T`. The caller states `T`; it is sound when `T` is derived from
 * `schema` itself (`FromSchema<typeof schema>`). Throws when the schema does not compile.
 */
export function compileInputGuard<T>(schema: { readonly [key: string]: JsonValue }): InputGuard<T> {
  guards ??= newAjv()
  const validate = guards.compile<T>(schema)
  return {
    matches: (input): input is JsonValue & T => validate(input),
    why: (input) => (validate(input) ? 'it matches' : reasons(validate.errors)),
  }
}

function reasons(errors: readonly ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => `input${e.instancePath.replaceAll('/', '.')} ${e.message ?? 'is invalid'}`)
    .join('; ')
}
