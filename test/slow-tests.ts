/**
 * The test files `npm test` leaves to `npm run test:full` (which CI also runs, after `npm test`):
 * each is slow because of what it proves (a packed install, long crash or fuzz loops, several
 * processes racing on one store), not because it waits. vitest.config.ts builds its projects
 * from this one list: `fast` and `fast-shared` (`npm test`) run every test file but these, `full`
 * runs exactly these, so the three together are the whole suite. A new slow test goes here, with
 * its reason.
 */
export const SLOW_TESTS: readonly string[] = [
  // `npm pack`, `npm install` of the tarball into a clean directory, then `npx dsh-acp`.
  'test/e2e/packed.test.ts',
  // SIGKILL crash loops: rounds of a writer (and of two writers taking turns) killed at random.
  'test/persistence/crash-loop.test.ts',
  // File checkpoints: rounds of agents killed at random moments of a turn.
  'test/e2e/checkpoint-crash.test.ts',
  // 2,000 seeded hostile frames against one built server, then every session loaded.
  'test/e2e/fuzz.test.ts',
  // Several agent processes on one store: random prompts, forks, rewinds, loads and SIGKILLs.
  'test/e2e/multi-process-model.test.ts',
  // Several agent processes sharing one store (pens, watches, kills), each a real server.
  'test/e2e/multi-process.test.ts',
  // Two and three agent processes on one store following each other's turns live.
  'test/e2e/live-cross.test.ts',
  'test/e2e/cross-questions.test.ts',
  // Two processes: a cancel from one process's client ends the turn the other runs.
  'test/e2e/cross-cancel.test.ts',
  'test/e2e/cross-url-elicitation.test.ts',
  'test/e2e/live-model.test.ts',
  // The longest property runs: fork at every boundary of random logs; rewind on disk.
  'src/session/fork/fork.property.test.ts',
  'test/persistence/rewind.property.test.ts',
  // The remote transports: 200 random drops of the SSE stream and 200 of the WebSocket mid-turn.
  'test/e2e/remote-resume.test.ts',
  // Two processes racing a rewind's cut against a stale view, with kills.
  'test/e2e/multi-process-cuts.test.ts',
  // The built server on PostgreSQL: three processes (two hosts and `dsh-acp sessions`) on one database.
  'test/e2e/postgres-store.test.ts',
  // Three built processes on one database: one host following another's turns live, and queueing behind them.
  'test/e2e/postgres-live.test.ts',
  // Three `serve` processes on one database: one killed mid-turn, another taking the session over.
  'test/e2e/postgres-serve.test.ts',
  // Two built hosts on one database: questions and presence through the board, one killed mid-question.
  'test/e2e/postgres-board.test.ts',
  // The built server on PostgreSQL through a TCP proxy that cuts its connections mid-turn.
  'test/e2e/postgres-faults.test.ts',
  // Every snapshot scenario a second time, through `dsh-acp replay`'s engine. `npm test` runs each
  // scenario live (test/e2e/snapshots.test.ts and the *-snapshots tests compare its transcript and
  // store files) and the replay engine's own contract (test/e2e/replay.test.ts).
  'test/e2e/snapshot-replay.test.ts',
]

/**
 * Test files with long runs (a loop over every byte, a property's runs) that `npm test` samples
 * and `npm run test:full` runs whole: `fast*` run them as any other file, `full` runs them again
 * with `DSH_TEST_FULL=1` (test/support/long-runs.ts), which makes the loops whole.
 */
export const SAMPLED_TESTS: readonly string[] = [
  // A cut at every byte of the last two events (~200 loads, appends and closes); sampled: every
  // line boundary and its neighbours, and every seventh byte.
  'test/persistence/truncation.test.ts',
]
