import { isAbsolute } from 'node:path'
import { ProtocolError } from './errors.js'

/**
 * What the ACP schema cannot say about a path: ACP requires every `cwd` (and every additional
 * directory) to be absolute. Throws -32602 naming the field.
 */
export function assertAbsolutePath(method: string, field: string, value: string): string {
  if (!isAbsolute(value)) {
    throw ProtocolError.invalidParams(
      `${method}: ${field} must be an absolute path, got ${JSON.stringify(value)}`,
      { field, [field]: value },
    )
  }
  return value
}

/** `_meta.dsh` of the params, if it is an object (its schema is in schemas/acp-meta.schema.json). */
export function dshMeta(params: {
  _meta?: { [key: string]: unknown } | null
}): Record<string, unknown> | undefined {
  const dsh = params._meta?.dsh
  return typeof dsh === 'object' && dsh !== null && !Array.isArray(dsh)
    ? (dsh as Record<string, unknown>)
    : undefined
}
