import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, isAbsolute, join } from 'node:path'
import { configDir } from '../config/paths.js'
import type { ConfigProblem } from '../config/problems.js'
import { readSmallFile } from '../config/small-file.js'

/** One folder the user decided about: trusted (its project files are used) or declined. */
export interface TrustEntry {
  readonly decision: 'trusted' | 'declined'
  /** Whether the folder was decided as a repository root or as a working directory. */
  readonly scope: 'repo' | 'cwd'
  /** When it was decided (ISO 8601). */
  readonly at: string
}

/** The decisions, by absolute real path. */
export type TrustEntries = ReadonlyMap<string, TrustEntry>

/** `trust.json` in the user's configuration directory: the workspace-trust decisions. */
export function trustFile(env: NodeJS.ProcessEnv = process.env, home?: string): string {
  return join(configDir(env, home), 'trust.json')
}

/**
 * The decisions `file` holds. An absent file is none; an unreadable or malformed one is none and a
 * problem naming it (fail closed: nothing is trusted). Entries that are not absolute paths with a
 * known decision are left out, each with a problem.
 */
export function readTrust(file: string): { entries: TrustEntries; problems: ConfigProblem[] } {
  const read = readSmallFile(file)
  if (read.state === 'absent') return { entries: new Map(), problems: [] }
  if (read.state === 'refused')
    return { entries: new Map(), problems: [{ file, pointer: '', message: read.reason }] }
  let value: unknown
  try {
    value = JSON.parse(read.text)
  } catch (error) {
    return {
      entries: new Map(),
      problems: [{ file, pointer: '', message: `is not valid JSON: ${(error as Error).message}` }],
    }
  }
  const folders = (value as { folders?: unknown } | null)?.folders
  if (typeof folders !== 'object' || folders === null || Array.isArray(folders)) {
    return {
      entries: new Map(),
      problems: [{ file, pointer: '/folders', message: 'expected an object of absolute path to decision' }],
    }
  }
  const entries = new Map<string, TrustEntry>()
  const problems: ConfigProblem[] = []
  for (const [path, entry] of Object.entries(folders)) {
    if (isAbsolute(path) && isEntry(entry)) entries.set(path, entry)
    else
      problems.push({
        file,
        pointer: `/folders/${path.replaceAll('~', '~0').replaceAll('/', '~1')}`,
        message:
          'expected an absolute path to {"decision": "trusted" | "declined", "scope": "repo" | "cwd", "at"}',
      })
  }
  return { entries, problems }
}

function isEntry(value: unknown): value is TrustEntry {
  const entry = value as Partial<TrustEntry> | null
  return (
    typeof entry === 'object' &&
    entry !== null &&
    (entry.decision === 'trusted' || entry.decision === 'declined') &&
    (entry.scope === 'repo' || entry.scope === 'cwd') &&
    typeof entry.at === 'string'
  )
}

/**
 * Records `entry` for `path` (undefined: forgets `path`), keeping the other decisions; returns
 * whether something changed. Written to a temporary file of mode 0600 in the same directory (made
 * 0700 when new), then renamed into place: the file is never seen half written.
 */
export function writeDecision(file: string, path: string, entry: TrustEntry | undefined): boolean {
  const { entries } = readTrust(file)
  const next = new Map(entries)
  if (entry === undefined) {
    if (!next.delete(path)) return false
  } else next.set(path, entry)
  const dir = dirname(file)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const temporary = join(dir, `.trust.json.${process.pid}.tmp`)
  const folders = Object.fromEntries([...next].sort(([a], [b]) => a.localeCompare(b)))
  writeFileSync(temporary, `${JSON.stringify({ folders }, null, 2)}\n`, { mode: 0o600 })
  chmodSync(temporary, 0o600)
  renameSync(temporary, file)
  return true
}
