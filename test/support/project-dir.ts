import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A real, empty directory that tests open their sessions in: ACP makes `cwd` the session's working
 * directory, and the server refuses one that does not exist. One per test process, removed when
 * the process exits. Tests that write files make their own directory.
 */
export const PROJECT_DIR = mkdtempSync(join(tmpdir(), 'dsh-acp-project-'))

process.once('exit', () => rmSync(PROJECT_DIR, { recursive: true, force: true }))
