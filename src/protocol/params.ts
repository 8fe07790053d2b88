import { type Stats, statSync } from 'node:fs'
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

/**
 * A `cwd` for a new session: an absolute path without NUL that, when it exists, is a directory
 * (a path that does not exist yet is accepted: the editor may create it). Else -32602.
 */
export function assertWorkingDirectory(method: string, field: string, value: string): string {
  if (value.includes('\0')) {
    throw ProtocolError.invalidParams(`${method}: ${field} must not contain NUL characters`, { field })
  }
  assertAbsolutePath(method, field, value)
  let stats: Stats | undefined
  try {
    stats = statSync(value)
  } catch {
    stats = undefined
  }
  if (stats !== undefined && !stats.isDirectory()) {
    throw ProtocolError.invalidParams(`${method}: ${field} ${JSON.stringify(value)} is not a directory`, {
      field,
      [field]: value,
    })
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
