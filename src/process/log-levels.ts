/** Log levels as reggol counts them: 0 silent, 1 errors, 2 warnings and info, 3 debug. */
export const LOG_LEVELS = { silent: 0, error: 1, info: 2, debug: 3 } as const
export type LogLevelName = keyof typeof LOG_LEVELS
/** The level names, quietest first (the `--log-level` and `logLevel` values). */
export const LOG_LEVEL_NAMES = ['silent', 'error', 'info', 'debug'] as const satisfies readonly LogLevelName[]
