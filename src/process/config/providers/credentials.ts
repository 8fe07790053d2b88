import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { ConfigProblem } from '../problems.js'
import { readSmallFile } from '../small-file.js'

/** `credentials.json`: the API keys stored by `dsh-acp setup`, by provider id. Mode 0600. */
interface CredentialsFile {
  readonly keys: Readonly<Record<string, string>>
}

/** What reading the credentials file gave: its keys (none when absent) and what was wrong. */
export interface StoredKeys {
  readonly keys: Readonly<Record<string, string>>
  readonly problems: readonly ConfigProblem[]
}

/**
 * The stored keys. An absent file is no keys; an unreadable or malformed one is no keys and a
 * problem naming it (never its content), as is anything but a regular file of at most 1 MiB (a FIFO
 * or a device is never opened for reading: see `readSmallFile`). A file others may read is still
 * used, with a warning.
 */
export function readCredentials(file: string): StoredKeys {
  const read = readSmallFile(file)
  if (read.state === 'absent') return { keys: {}, problems: [] }
  if (read.state === 'refused') return { keys: {}, problems: [{ file, pointer: '', message: read.reason }] }
  const text = read.text
  const problems: ConfigProblem[] = []
  if (process.platform !== 'win32' && (read.mode & 0o077) !== 0) {
    problems.push({ file, pointer: '', message: `is readable by other users: run chmod 600 ${file}` })
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return {
      keys: {},
      problems: [
        ...problems,
        { file, pointer: '', message: 'is not valid JSON (its content is not shown: it holds keys)' },
      ],
    }
  }
  const keys = (value as { keys?: unknown } | null)?.keys
  if (typeof keys !== 'object' || keys === null || Array.isArray(keys)) {
    return {
      keys: {},
      problems: [
        ...problems,
        { file, pointer: '/keys', message: 'expected an object of provider id to key' },
      ],
    }
  }
  const valid: Record<string, string> = {}
  for (const [id, key] of Object.entries(keys)) {
    if (typeof key === 'string' && key !== '') valid[id] = key
    else problems.push({ file, pointer: `/keys/${id}`, message: 'expected a non-empty string' })
  }
  return { keys: valid, problems }
}

/**
 * Stores `key` for `providerId` (replacing its old one, keeping the others): written to a
 * temporary file of mode 0600 in the same directory (made 0700 when it is new), then renamed into
 * place, so the file is never seen half written or with wider permissions.
 */
export function storeKey(file: string, providerId: string, key: string): void {
  const { keys } = readCredentials(file)
  writeCredentials(file, { keys: { ...keys, [providerId]: key } })
}

/**
 * Removes the key of `providerId` (every key when undefined). Returns the ids removed. When no key
 * is left, the file is deleted.
 */
export function removeKeys(file: string, providerId?: string): string[] {
  const { keys } = readCredentials(file)
  const removed = Object.keys(keys).filter((id) => providerId === undefined || id === providerId)
  if (removed.length === 0) return []
  const rest = Object.fromEntries(Object.entries(keys).filter(([id]) => !removed.includes(id)))
  if (Object.keys(rest).length === 0) rmSync(file, { force: true })
  else writeCredentials(file, { keys: rest })
  return removed
}

function writeCredentials(file: string, content: CredentialsFile): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  const temp = `${file}.${process.pid}.tmp`
  rmSync(temp, { force: true })
  try {
    writeFileSync(temp, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600, flag: 'wx' })
    chmodSync(temp, 0o600)
    renameSync(temp, file)
  } catch (error) {
    rmSync(temp, { force: true })
    throw error
  }
}
