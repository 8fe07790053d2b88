import { randomBytes } from 'node:crypto'
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

/** A new bearer token: 32 random bytes, base64url. */
function newToken(): string {
  return randomBytes(32).toString('base64url')
}

/**
 * The server's bearer token, kept in `file` (mode 0600, its directory 0700): read when it exists,
 * made at the first start otherwise, replaced when `rotate`. A file that others can read is
 * narrowed to 0600 first (and said so through `warn`).
 */
export function serverToken(file: string, rotate: boolean, warn: (message: string) => void): string {
  if (!rotate) {
    const existing = readToken(file, warn)
    if (existing !== undefined) return existing
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  const token = newToken()
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, `${token}\n`, { mode: 0o600, flag: 'wx' })
  renameSync(temporary, file)
  return token
}

function readToken(file: string, warn: (message: string) => void): string | undefined {
  let mode: number
  try {
    mode = statSync(file).mode
  } catch {
    return undefined
  }
  if ((mode & 0o077) !== 0) {
    warn(`${file} was readable by others: narrowed to 0600 (rotate the token: dsh-acp serve --rotate-token)`)
    chmodSync(file, 0o600)
  }
  const token = readFileSync(file, 'utf8').trim()
  if (!/^[A-Za-z0-9_-]{20,200}$/.test(token))
    throw new Error(`${file} does not hold a token; remove it or --rotate-token`)
  return token
}
