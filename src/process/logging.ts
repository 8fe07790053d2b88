import { Logger } from 'cordis'
import { LOG_LEVELS } from './log-levels.js'

export { LOG_LEVELS } from './log-levels.js'

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
