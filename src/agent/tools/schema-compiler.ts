import { Ajv, type ErrorObject } from 'ajv'
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

const newAjv = () => new Ajv({ strict: false, allErrors: false, validateSchema: true, logger: false })

/** One ajv instance whose compiled schemas report the first error as `input.path message`. */
export function createSchemaCompiler(): SchemaCompiler {
  const ajv = newAjv()
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
