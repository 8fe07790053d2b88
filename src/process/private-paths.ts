import { homedir } from 'node:os'
import { dirname, isAbsolute, join, resolve } from 'node:path'

/**
 * What a sandboxed command must not see, from where this run keeps its data: the session store,
 * the data home it sits in when it is the default one (`$DSH_HOME`, else `$XDG_DATA_HOME/dsh-acp`),
 * the configuration and credentials directory (`$XDG_CONFIG_HOME/dsh-acp`, default
 * `~/.config/dsh-acp`) and the `--transcript` file.
 */
export function privatePaths(
  run: { readonly storeDir: string | null; readonly defaultStore: boolean; readonly transcript?: string },
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): string[] {
  const paths: string[] = []
  if (run.storeDir !== null) {
    paths.push(resolve(run.storeDir))
    if (run.defaultStore) paths.push(dirname(resolve(run.storeDir)))
  }
  if (env.DSH_HOME) paths.push(resolve(env.DSH_HOME))
  const xdg = env.XDG_CONFIG_HOME
  paths.push(join(xdg && isAbsolute(xdg) ? xdg : join(home, '.config'), 'dsh-acp'))
  if (run.transcript !== undefined) paths.push(resolve(run.transcript))
  return [...new Set(paths)]
}
