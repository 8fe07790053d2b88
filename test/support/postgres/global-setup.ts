import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { stopPostgresServer } from './server.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's directory where the first test file that needs PostgreSQL starts the server. */
    dshPostgresRunDir: string
  }
}

/**
 * vitest globalSetup: one PostgreSQL test server per test run, started lazily by the first test
 * file that asks for a database (`test/support/postgres/test-database.ts`), so a run without such
 * files pays nothing; stopped and removed here when the run ends.
 */
export default function setup(project: TestProject): () => Promise<void> {
  const runDir = mkdtempSync(join(tmpdir(), 'dsh-acp-pg-run-'))
  // The server's own account (see server.ts) passes through to its data directory.
  chmodSync(runDir, 0o711)
  project.provide('dshPostgresRunDir', runDir)
  return async () => {
    const dataDir = join(runDir, 'server', 'data')
    try {
      if (existsSync(join(dataDir, 'postmaster.pid'))) await stopPostgresServer(dataDir)
    } finally {
      rmSync(runDir, { recursive: true, force: true })
    }
  }
}
