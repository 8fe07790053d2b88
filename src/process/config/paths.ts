import { existsSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, isAbsolute, join, resolve } from 'node:path'

/**
 * The user's dsh-acp configuration directory: `$XDG_CONFIG_HOME/dsh-acp` when that is an absolute
 * path (the XDG rule: a relative one is ignored), else `~/.config/dsh-acp`.
 */
export function configDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const xdg = env.XDG_CONFIG_HOME
  return join(xdg && isAbsolute(xdg) ? xdg : join(home, '.config'), 'dsh-acp')
}

/** The user's configuration file. */
export function userConfigFile(env?: NodeJS.ProcessEnv, home?: string): string {
  return join(configDir(env, home), 'config.json')
}

/** The file holding the API keys `dsh-acp setup` stored (mode 0600). */
export function credentialsFile(env?: NodeJS.ProcessEnv, home?: string): string {
  return join(configDir(env, home), 'credentials.json')
}

/** Where a project keeps its own settings, relative to its root. */
export const PROJECT_CONFIG_PATH = join('.dsh-acp', 'config.json')

/**
 * The project file that applies in `cwd`: `.dsh-acp/config.json` in `cwd` or the nearest parent
 * that has one, looking no higher than the repository root (the first directory with `.git`) and
 * never in the home directory itself (`~/.dsh-acp` is not a project). Undefined when there is none.
 */
export function findProjectConfig(cwd: string, home: string = homedir()): string | undefined {
  let dir = resolve(cwd)
  const stopAt = resolve(home)
  for (;;) {
    if (dir === stopAt) return undefined
    const file = join(dir, PROJECT_CONFIG_PATH)
    if (isFile(file)) return file
    if (existsSync(join(dir, '.git'))) return undefined
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}
