import { homedir } from 'node:os'
import { isAbsolute, join } from 'node:path'

/**
 * The user's dsh-acp config directory: `$XDG_CONFIG_HOME/dsh-acp` when that is an absolute path
 * (XDG: a relative one is ignored), else `~/.config/dsh-acp`.
 */
export function userConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(env.HOME ?? homedir(), '.config')
  return join(base, 'dsh-acp')
}
