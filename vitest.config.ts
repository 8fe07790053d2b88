import { defineConfig } from 'vitest/config'
import { ISOLATED_TESTS } from './test/isolated-tests.js'
import { SAMPLED_TESTS, SLOW_TESTS } from './test/slow-tests.js'

const ALL_TESTS = ['src/**/*.test.ts', 'test/**/*.test.ts']
const END_TO_END = 'test/e2e/**/*.test.ts'

/**
 * Three projects over one suite. `npm test` runs the two `fast*` ones: every test file but the
 * slow ones named in test/slow-tests.ts, the sampled ones there with a sample of their long runs.
 * `full` (`npm run test:full`) is exactly the slow ones, and the sampled ones whole.
 * `vitest run` with no `--project` runs all three.
 *
 * - `fast-shared`: the in-process tests (src/**, test/** outside test/e2e), several files to one
 *   worker process (`isolate: false`), which saves a process start, the setup file and the module
 *   transforms per file. The rule for a file here: whatever process-wide state it changes
 *   (`process.env`, `vi.useFakeTimers`, `vi.spyOn`, `process.umask`, globals, `process.on`
 *   handlers) it restores in its own `afterEach`/`finally`, and it needs no module fresh.
 * - `fast`: a fresh process per file (vitest's default) for the end-to-end tests (test/e2e/**,
 *   which drive the built binary) and the in-process files that cannot meet that rule (module
 *   mocks with `vi.mock`, lock-holding children), each listed with its reason in
 *   test/isolated-tests.ts.
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
      {
        extends: true,
        test: {
          name: 'fast-shared',
          include: ALL_TESTS,
          exclude: [END_TO_END, ...ISOLATED_TESTS, ...SLOW_TESTS],
          isolate: false,
          // Two workers even where vitest's default (cores - 1) is one: on 2 cores, measured
          // 0.8x the time of one. Its own group, run first: projects of one group share one
          // maxWorkers.
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'fast',
          include: [END_TO_END, ...ISOLATED_TESTS],
          exclude: [...SLOW_TESTS],
          // Three workers on 2 cores: an end-to-end test spends much of its time waiting on the
          // binary it drives (and that binary on its children), so three files overlap best;
          // measured on 2 quiet cores: 208 s against 226 s with two and 221 s with four.
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'full',
          include: [...SLOW_TESTS, ...SAMPLED_TESTS],
          // The sampled files' long runs whole (test/support/long-runs.ts).
          env: { DSH_TEST_FULL: '1' },
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
})
