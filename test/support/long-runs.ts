/**
 * Whether this run is `npm run test:full`'s (the `full` project sets `DSH_TEST_FULL=1`): a file
 * named in SAMPLED_TESTS (test/slow-tests.ts) runs there whole, and in `npm test` a sample of its
 * long runs, chosen the same way every run. The two together check what the whole run checks.
 */
export const FULL_RUN = process.env.DSH_TEST_FULL === '1'
