#!/usr/bin/env node
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { useCodeCache } from './process/early-start/code-cache.js'

/**
 * The `dsh-acp` executable (`dist/cli.cjs`, bundled by scripts/bundle-cli.mjs): hands V8 the
 * compiled code of the CLI's chunks (process/early-start/code-cache.ts), then runs cli.ts, whose
 * code is one of them. `DSH_WRITE_CODE_CACHE=1` is the build's own switch (its warm-up run), not
 * an option: it writes the caches when the process exits.
 */
const here = dirname(fileURLToPath(import.meta.url))
useCodeCache({
  chunks: join(here, 'cli-chunks'),
  cache: join(here, 'code-cache', `${process.versions.v8}-${process.arch}`),
  write: process.env.DSH_WRITE_CODE_CACHE === '1',
})
import('./cli.js').catch((error: unknown) => {
  process.stderr.write(`dsh-acp: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
})
