import { Ajv } from 'ajv'
import type { JsonValue } from '../../session/index.js'

/** Why `input` does not match a compiled schema, or undefined when it does. */
export type InputCheck = (input: JsonValue) => string | undefined

/** Compiles tool input schemas (JSON Schema draft-07); throws when one does not compile. */
export type SchemaCompiler = (schema: { readonly [key: string]: JsonValue }) => InputCheck

/** One ajv instance whose compiled schemas report the first error as `input.path message`. */
export function createSchemaCompiler(): SchemaCompiler {
  const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: true })
  return (schema) => {
    const validate = ajv.compile(schema)
    return (input) => {
      if (validate(input)) return undefined
      return (validate.errors ?? [])
        .map((e) => `input${e.instancePath.replaceAll('/', '.')} ${e.message ?? 'is invalid'}`)
        .join('; ')
    }
  }
}
