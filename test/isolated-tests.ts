/**
 * The in-process test files that still need a fresh process of their own. vitest.config.ts runs
 * every other in-process test file (src/**, test/** outside test/e2e) in the `fast-shared`
 * project, several files to one worker process (`isolate: false`): what one file changes that is
 * process-wide (a module mock, `process.env`, the working directory, fake timers, globals,
 * `process.on` handlers, module-level state it needs fresh) would reach the next. A file that
 * cannot restore such a change in its own `afterEach`/`finally` goes here, with its reason; the
 * end-to-end files (test/e2e/**) are always isolated and need no entry.
 */
export const ISOLATED_TESTS: readonly string[] = [
  // `vi.mock` of ./local-files.js: a module mock is registered per module graph, not per file.
  'src/agent/tools/files/file-changes.test.ts',
  // `vi.mock('node:fs')` to fill the disk on demand, under the store's lock.
  'src/persistence/session-lock.test.ts',
  // Lock-holding child processes: the tests reason about which pids hold pens and reap them.
  'test/persistence/locks.test.ts',
  'test/persistence/stale-pen.test.ts',
]
