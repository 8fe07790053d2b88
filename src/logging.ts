import { Logger } from 'cordis'

/** Log levels as reggol counts them: 0 silent, 1 errors, 2 warnings and info, 3 debug. */
export const LOG_LEVELS = { silent: 0, error: 1, info: 2, debug: 3 } as const
export type LogLevelName = keyof typeof LOG_LEVELS

/**
 * Points every cordis/reggol log target at stderr. stdout is the protocol channel: this must run
 * before any plugin can log. `Logger.targets` is process-global state.
 */
export function routeLogsToStderr(level: number = LOG_LEVELS.info): void {
  Logger.targets.splice(0, Number.POSITIVE_INFINITY, {
    colors: 0,
    print: (text: string) => {
      process.stderr.write(`${text}\n`)
    },
  })
  Logger.levels.base = level
}
