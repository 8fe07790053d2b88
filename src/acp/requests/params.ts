import { statSync } from 'node:fs'
import { isAbsolute } from 'node:path'
import { ProtocolError } from '../errors.js'

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
 * A session's working directory (`cwd` of `session/new`, `load`, `resume` and `fork`): an
 * absolute path without NUL naming an existing directory (a symlink to one counts). ACP makes the
 * cwd the session's working directory and the file tools confine to it, so a path that does not
 * exist or is not a directory is refused with -32602 naming the path (`data.field`, `data.cwd`).
 * Synchronous (one stat), so a `session/new` still creates its session before the next pipelined
 * message starts (see `wire/batch.ts`).
 */
export function assertWorkingDirectory(method: string, field: string, value: string): string {
  if (value.includes('\0')) {
    throw ProtocolError.invalidParams(`${method}: ${field} must not contain NUL characters`, { field })
  }
  assertAbsolutePath(method, field, value)
  let problem: string | undefined
  try {
    if (!statSync(value).isDirectory()) problem = 'is not a directory'
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    problem =
      code === 'ENOENT' || code === 'ENOTDIR'
        ? 'does not exist'
        : `cannot be used (${code ?? (error as Error).message})`
  }
  if (problem !== undefined) {
    throw ProtocolError.invalidParams(`${method}: ${field} ${JSON.stringify(value)} ${problem}`, {
      field,
      [field]: value,
    })
  }
  return value
}
