import { homedir } from 'node:os'
import { isAbsolute, join } from 'node:path'

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
