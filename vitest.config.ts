import { defineConfig } from 'vitest/config'
import { SLOW_TESTS } from './test/slow-tests.js'

const ALL_TESTS = ['src/**/*.test.ts', 'test/**/*.test.ts']

/**
 * Two projects over one suite: `fast` (`npm test`) is every test file but the slow ones named in
 * test/slow-tests.ts, `full` (`npm run test:full`) is exactly those. `vitest run` with neither
 * `--project` runs both.
 */
export default defineConfig({
  test: {
    setupFiles: ['test/setup.ts'],
    // One PostgreSQL server per run, started by the first test file that needs one.
    globalSetup: ['test/support/postgres/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // A real full collection for tests that prove a closed session is collectable (Node's own flag).
    execArgv: ['--expose-gc'],
    projects: [
      { extends: true, test: { name: 'fast', include: ALL_TESTS, exclude: [...SLOW_TESTS] } },
      { extends: true, test: { name: 'full', include: [...SLOW_TESTS] } },
    ],
  },
})
