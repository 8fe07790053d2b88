import type { SchemaValidator } from '../lib/schema-validator.js'
import { ProtocolError } from './errors.js'

/**
 * The params of one of our extension methods (`_session/*`) when its generated `validate` proves
 * them well formed, typed as its schema says; else -32602 `method: invalid params: …` with each
 * error as `path: message` (and the list in `data.errors`).
 */
export function checkedParams<T>(method: string, validate: SchemaValidator<T>, params: unknown): T {
  if (validate(params)) return params
  const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`)
  throw ProtocolError.invalidParams(`${method}: invalid params: ${errors.join('; ')}`, { errors })
}
