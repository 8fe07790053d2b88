import { routeLogsToStderr } from '../src/process/logging.js'

routeLogsToStderr(process.env.DSH_TEST_LOG_LEVEL ? Number(process.env.DSH_TEST_LOG_LEVEL) : 1)
