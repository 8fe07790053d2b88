import { existsSync, realpathSync, type Stats, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, sep } from 'node:path'
import { PROJECT_CONFIG_PATH } from '../config/paths.js'
import type { ConfigProblem } from '../config/problems.js'

/** Where a session works, by real path (symbolic links and `..` resolved). */
export interface Workspace {
  readonly cwd: string
  /** The nearest directory at or above `cwd` holding `.git`, below the user's home; absent: none. */
  readonly repoRoot?: string
  /** The directories a project file is looked for in, closest first (see {@link workspaceOf}). */
  readonly projectDirs: readonly string[]
}

/**
 * The workspace of `cwd`: its real path, its repository root, and where its project files may be:
 * from `cwd` up to the repository root, or `cwd` alone outside a repository; never the user's home
 * itself nor anything above it (a `.git` in the home directory makes no repository of it).
 */
export function workspaceOf(cwd: string, home: string = homedir()): Workspace {
  const real = realOrSelf(cwd)
  const realHome = realOrSelf(home)
  const underHome = real.startsWith(realHome + sep)
  const chain: string[] = []
  let repoRoot: string | undefined
  for (let dir = real; ; dir = dirname(dir)) {
    if (dir === realHome || (underHome && !dir.startsWith(realHome + sep))) break
    chain.push(dir)
    if (existsSync(join(dir, '.git'))) {
      repoRoot = dir
      break
    }
    if (dirname(dir) === dir) break
  }
  const projectDirs = repoRoot !== undefined ? chain : real === realHome ? [] : [real]
  return { cwd: real, ...(repoRoot !== undefined && { repoRoot }), projectDirs }
}

/** The project file a workspace has, if any, and why one found could not be used. */
export interface ProjectFileLookup {
  /** The closest `.dsh-acp/config.json` that may be read, with the directory holding it. */
  readonly found?: { readonly file: string; readonly dir: string }
  /** The closest one was refused (a symlink leaving its project, a directory others can write). */
  readonly problems: readonly ConfigProblem[]
}

/**
 * The closest `.dsh-acp/config.json` of the workspace's project directories. It is refused (a
 * problem, and no file) when it is reached through a symbolic link leading out of the directory
 * it is in, or when that directory, its `.dsh-acp` or the file can be written by another user
 * (owned by someone other than the user or root, or writable by others or by a group that is not
 * the user's own).
 */
export function findProjectFile(workspace: Workspace): ProjectFileLookup {
  for (const dir of workspace.projectDirs) {
    const file = join(dir, PROJECT_CONFIG_PATH)
    if (!existsSync(file)) continue
    const real = realOrSelf(file)
    if (!real.startsWith(dir + sep)) {
      return refused(file, `is a symbolic link leading out of ${dir} (to ${real}): not read`)
    }
    for (const path of [dir, dirname(real), real]) {
      const writer = otherWriter(statSync(path))
      if (writer) return refused(file, `${path} can be written by ${writer}: not read`)
    }
    return { found: { file, dir }, problems: [] }
  }
  return { problems: [] }
}

function refused(file: string, message: string): ProjectFileLookup {
  return { problems: [{ file, pointer: '', message }] }
}

/** Who other than the user (and root) may write what `stats` describes; undefined: nobody. */
function otherWriter(stats: Stats): string | undefined {
  if (process.platform === 'win32' || process.getuid === undefined) return undefined
  const uid = process.getuid()
  if (stats.uid !== uid && stats.uid !== 0) return `its owner (uid ${stats.uid})`
  if ((stats.mode & 0o002) !== 0) return 'every user'
  if ((stats.mode & 0o020) !== 0 && stats.gid !== process.getgid?.()) return `the group ${stats.gid}`
  return undefined
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}
