import { routeLogsToStderr } from '../src/logging.js'

routeLogsToStderr(process.env.DSH_TEST_LOG_LEVEL ? Number(process.env.DSH_TEST_LOG_LEVEL) : 1)
