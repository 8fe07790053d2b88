export { LOG_LEVELS, type LogLevelName, routeLogsToStderr } from './logging.js'
export * from './session/index.js'
