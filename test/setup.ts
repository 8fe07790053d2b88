import { routeLogsToStderr } from '../src/process/logging.js'

routeLogsToStderr(process.env.DSH_TEST_LOG_LEVEL ? Number(process.env.DSH_TEST_LOG_LEVEL) : 1)

// The tests and the agents they start never read the developer's own configuration files
// (~/.config/dsh-acp): a fresh, empty config home unless a test sets its own.
if (process.env.DSH_TEST_KEEP_CONFIG_HOME === undefined) {
  const { mkdtempSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  process.env.XDG_CONFIG_HOME = mkdtempSync(join(tmpdir(), 'dsh-acp-test-config-'))
}
