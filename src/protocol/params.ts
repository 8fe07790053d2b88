import { isAbsolute } from 'node:path'
import { ProtocolError } from './errors.js'

export type Params = Record<string, unknown>

/** Request params must be a JSON object (ACP methods take named params only). */
export function objectParams(method: string, params: unknown): Params {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw ProtocolError.invalidParams(`${method}: params must be an object`)
  }
  return params as Params
}

export function requireString(params: Params, field: string, method: string): string {
  const value = params[field]
  if (typeof value !== 'string' || value.length === 0) {
    throw ProtocolError.invalidParams(`${method}: ${field} must be a non-empty string`, { field })
  }
  return value
}

export function optionalString(params: Params, field: string, method: string): string | undefined {
  const value = params[field]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string')
    throw ProtocolError.invalidParams(`${method}: ${field} must be a string`, { field })
  return value
}

/** ACP requires every `cwd` to be an absolute path. */
export function requireAbsolutePath(params: Params, field: string, method: string): string {
  const value = requireString(params, field, method)
  if (!isAbsolute(value)) {
    throw ProtocolError.invalidParams(
      `${method}: ${field} must be an absolute path, got ${JSON.stringify(value)}`,
      {
        field,
        [field]: value,
      },
    )
  }
  return value
}

export function optionalArray(params: Params, field: string, method: string): unknown[] | undefined {
  const value = params[field]
  if (value === undefined || value === null) return undefined
  if (!Array.isArray(value))
    throw ProtocolError.invalidParams(`${method}: ${field} must be an array`, { field })
  return value
}

/** `_meta.dsh` of the params, if it is an object. */
export function dshMeta(params: Params): Record<string, unknown> | undefined {
  const meta = params._meta
  if (typeof meta !== 'object' || meta === null) return undefined
  const dsh = (meta as Record<string, unknown>).dsh
  return typeof dsh === 'object' && dsh !== null && !Array.isArray(dsh)
    ? (dsh as Record<string, unknown>)
    : undefined
}
