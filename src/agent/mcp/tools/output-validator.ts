import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation/types.js'
import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { RE2_PATTERNS } from '../../tools/schema-compiler.js'

// ajv-formats is CJS with `exports.default`; under NodeNext its default import is the whole module.
const addFormats = addFormatsModule.default

/**
 * The validator the MCP SDK client checks tools' `structuredContent` with (one per connection, so
 * nothing accumulates across reconnects and a schema `$id` never clashes with another server's).
 * It writes nothing to the console (ajv's default logger warns about unknown formats on stderr,
 * which `--log-level silent` must not see), knows the standard formats, and evaluates patterns
 * with RE2 (the engine tool input schemas use). An output schema that does not compile does not reject the server's whole tool list:
 * that tool's results are refused, saying why.
 */
export function outputValidator(): jsonSchemaValidator {
  // Built at the first schema: most connections never ask for one.
  let built: Ajv | undefined
  const instance = (): Ajv => {
    if (!built) {
      built = new Ajv({ strict: false, allErrors: false, logger: false, code: { regExp: RE2_PATTERNS } })
      addFormats(built)
    }
    return built
  }
  return {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      const ajv = instance()
      let validate: ReturnType<Ajv['compile']>
      try {
        validate = ajv.compile(schema)
      } catch (error) {
        const errorMessage = `its outputSchema does not compile (${(error as Error).message})`
        return () => ({ valid: false, data: undefined, errorMessage })
      }
      return (input) =>
        validate(input)
          ? { valid: true, data: input as T, errorMessage: undefined }
          : { valid: false, data: undefined, errorMessage: ajv.errorsText(validate.errors) }
    },
  }
}
