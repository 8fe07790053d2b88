import { readFile, stat } from 'node:fs/promises'
import { dirname, isAbsolute, join, resolve } from 'node:path'

/** The git repository a directory is in: its root (the directory holding `.git`) and branch. */
export interface GitRepository {
  readonly root: string
  /** The checked-out branch; `detached at <12 hex>` for a detached HEAD; absent when unreadable. */
  readonly branch?: string
}

/**
 * The repository `dir` (absolute) lies in: the nearest directory at or above it with a `.git`
 * directory or file (a worktree's or submodule's `gitdir:` file), or undefined outside any. The
 * branch is read from `HEAD` (no `git` process runs); a HEAD that cannot be read leaves it out.
 */
export async function findGitRepository(dir: string): Promise<GitRepository | undefined> {
  for (let current = dir; ; current = dirname(current)) {
    const dotGit = join(current, '.git')
    const kind = await entryKind(dotGit)
    if (kind !== undefined) {
      const gitDir = kind === 'dir' ? dotGit : await linkedGitDir(dotGit, current)
      const branch = gitDir === undefined ? undefined : await headBranch(gitDir)
      return { root: current, ...(branch !== undefined && { branch }) }
    }
    if (dirname(current) === current) return undefined
  }
}

async function entryKind(path: string): Promise<'dir' | 'file' | undefined> {
  try {
    const info = await stat(path)
    if (info.isDirectory()) return 'dir'
    return info.isFile() ? 'file' : undefined
  } catch {
    return undefined
  }
}

/** The directory a `.git` file names (`gitdir: <path>`, relative to the file's directory). */
async function linkedGitDir(file: string, base: string): Promise<string | undefined> {
  const text = await readSmall(file)
  const match = text === undefined ? null : /^gitdir:\s*(.+?)\s*$/m.exec(text)
  if (!match?.[1]) return undefined
  return isAbsolute(match[1]) ? match[1] : resolve(base, match[1])
}

async function headBranch(gitDir: string): Promise<string | undefined> {
  const head = (await readSmall(join(gitDir, 'HEAD')))?.trim()
  if (head === undefined || head === '') return undefined
  const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head)
  if (ref?.[1]) return ref[1]
  return /^[0-9a-f]{40,64}$/.test(head) ? `detached at ${head.slice(0, 12)}` : undefined
}

/** A small regular file's text, or undefined when it cannot be read, is no regular file or is over 4 KiB. */
async function readSmall(path: string): Promise<string | undefined> {
  try {
    const info = await stat(path)
    if (!info.isFile() || info.size > 4096) return undefined
    return await readFile(path, 'utf8')
  } catch {
    return undefined
  }
}
