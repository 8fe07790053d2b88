import type { Dirent } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import type { Ignore } from 'ignore'
import { Pacer } from './pacer.js'

/** Most entries one walk visits, so a search in a huge tree stays bounded. */
export const MAX_WALK_ENTRIES = 100_000

interface IgnoreRules {
  /** The directory (relative to the root, posix, '' for the root) whose `.gitignore` these are. */
  readonly base: string
  readonly rules: Ignore
}

/** One file a walk found: its path relative to the walk's root (posix separators). */
export interface WalkedFile {
  readonly relative: string
  readonly absolute: string
}

/**
 * The files under `start` (inside `root`), depth first in name order: `.git` directories are
 * skipped, and so is whatever the `.gitignore` files of `root` and the directories below it ignore
 * (rules from the `ignore` package, with git's semantics). Symbolic links are not followed, so a
 * walk never leaves `root`. Stops after {@link MAX_WALK_ENTRIES} entries (`truncated` says so).
 * It gives the event loop a turn every few milliseconds and throws `AbortError` once `signal`
 * aborts.
 *
 * The `.gitignore` files come from the workspace, which the model may write: the `ignore` package
 * compiles each rule so that no `*` can overlap its neighbour (a negative lookahead on what
 * follows), which keeps its matches from backtracking catastrophically; a test holds it to that.
 */
export async function* walkWorkspace(
  root: string,
  start: string,
  signal: AbortSignal,
  stats: { visited: number; truncated: boolean } = { visited: 0, truncated: false },
): AsyncGenerator<WalkedFile> {
  const rules = await rulesAbove(root, start)
  yield* walkDirectory({ root, pacer: new Pacer(signal), stats }, start, rules)
}

/** One walk: its root, its pacing, and what it counted. */
interface Walk {
  readonly root: string
  readonly pacer: Pacer
  readonly stats: { visited: number; truncated: boolean }
}

async function* walkDirectory(
  walk: Walk,
  directory: string,
  inherited: readonly IgnoreRules[],
): AsyncGenerator<WalkedFile> {
  const { root, pacer, stats } = walk
  if (pacer.due()) await pacer.rest()
  const relativeDir = toPosix(path.relative(root, directory))
  const own = await loadRules(directory, relativeDir)
  const rules = own ? [...inherited, own] : inherited
  let entries: Dirent[]
  try {
    entries = await readdir(directory, { withFileTypes: true })
  } catch {
    return
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (const entry of entries) {
    if (stats.visited >= MAX_WALK_ENTRIES) {
      stats.truncated = true
      return
    }
    stats.visited++
    if (pacer.due()) await pacer.rest()
    if (entry.name === '.git') continue
    const relative = relativeDir === '' ? entry.name : `${relativeDir}/${entry.name}`
    const absolute = path.join(directory, entry.name)
    if (entry.isDirectory()) {
      if (isIgnored(rules, `${relative}/`)) continue
      yield* walkDirectory(walk, absolute, rules)
    } else if (entry.isFile()) {
      if (!isIgnored(rules, relative)) yield { relative, absolute }
    }
  }
}

/** Whether `relative` (posix, from the root; a directory ends with `/`) is ignored by any rule set. */
export function isIgnored(rules: readonly IgnoreRules[], relative: string): boolean {
  for (const { base, rules: ig } of rules) {
    if (base !== '' && !relative.startsWith(`${base}/`)) continue
    const inside = base === '' ? relative : relative.slice(base.length + 1)
    if (inside !== '' && ig.ignores(inside)) return true
  }
  return false
}

/** The rules of the `.gitignore` files from `root` down to (not including) `start`. */
async function rulesAbove(root: string, start: string): Promise<IgnoreRules[]> {
  const rules: IgnoreRules[] = []
  const relative = toPosix(path.relative(root, start))
  if (relative === '') return rules
  const parts = relative.split('/')
  for (let i = 0; i < parts.length; i++) {
    const base = parts.slice(0, i).join('/')
    const loaded = await loadRules(path.join(root, ...parts.slice(0, i)), base)
    if (loaded) rules.push(loaded)
  }
  return rules
}

async function loadRules(directory: string, base: string): Promise<IgnoreRules | undefined> {
  let text: string
  try {
    text = await readFile(path.join(directory, '.gitignore'), 'utf8')
  } catch {
    return undefined
  }
  const { default: ignore } = await import('ignore')
  return { base, rules: ignore().add(text) }
}

function toPosix(relative: string): string {
  return relative.split(path.sep).join('/')
}
