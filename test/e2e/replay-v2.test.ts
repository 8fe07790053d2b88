import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CLI, HERMETIC_ENV } from '../support/agent-process.js'
import { runReplay } from '../support/run-replay.js'
import { SNAPSHOT_CLOCK, SNAPSHOT_PROJECT } from '../support/snapshot-scenario.js'
import type { ReplaySpec } from '../support/snapshot-spec.js'
import { V2_SNAPSHOT_ROOT } from '../support/v2/v2-scenario.js'

let work: string | undefined
afterEach(() => {
  if (work) rmSync(work, { recursive: true, force: true })
  work = undefined
})

/**
 * `dsh-acp replay --validate` on an ACP v2 transcript, from the command line as a user runs it:
 * the agent answers `initialize` with protocol version 2, so its messages are checked against the
 * v2 schema (the v1 one has no `state_update`, no `{messageId}` prompt answer).
 */
describe('dsh-acp replay on an ACP v2 transcript', () => {
  it('a v2 snapshot replays equal, with no schema violation', async () => {
    const name = 'v2-ask-user'
    const scenario = join(V2_SNAPSHOT_ROOT, name)
    const spec = JSON.parse(readFileSync(join(scenario, 'replay.json'), 'utf8')) as ReplaySpec
    work = mkdtempSync(join(tmpdir(), 'dsh-acp-replay-v2-'))
    const store = join(work, 'store')
    mkdirSync(join(work, SNAPSHOT_PROJECT))
    for (const [file, text] of Object.entries(spec.files)) writeFileSync(join(work, file), text)
    const args = (spec.processes[0]?.args ?? []).map((a) => a.replaceAll('<work>', work ?? ''))
    const transcript = join(scenario, 'transcript.jsonl')
    const run = await runReplay(
      [
        ...['--validate', '--set', `store=${store}`, '--set', `work=${work}`, transcript, '--'],
        ...[process.execPath, CLI, '--store', store, '--fake-clock', SNAPSHOT_CLOCK],
        ...['--id-prefix', 'ses_', '--log-level', 'error', ...args],
      ],
      HERMETIC_ENV,
    )
    expect(run.stderr).toBe('')
    expect(run.stdout).toMatch(
      new RegExp(`^${transcript}: equal \\(\\d+ agent messages, 1 connection\\)\\n$`),
    )
    expect(run.status).toBe(0)
  })
})
