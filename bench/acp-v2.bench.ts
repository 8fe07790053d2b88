import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BenchRow, median } from './harness.js'
import { BIG, writeBigSession } from './session-io.bench.js'
import { StdioBenchClient } from './stdio-client.js'

/**
 * Issue 36: ACP v2 against v1, the same built server over stdio in the same run (goal <= 1.1x):
 * - a prompt's first agent text (`agent_message_chunk`) with the echo model, from the prompt sent
 *   (v2 answers the prompt at acceptance; both wait for the turn's end before the next prompt);
 * - a resume with replay of the ~51 MB stored session (session-io's): v2 `session/resume
 *   {replayFrom: {type: "start"}}` against v1 `session/load`, sent the moment `initialize` is
 *   answered in a fresh process, to the first `session/update` and to the answer (replay done).
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const cli = process.env.DSH_BENCH_CLI ?? join(root, 'dist', 'cli.cjs')
const PROMPTS = 15
const RESUMES = 5
const CWD = tmpdir()
const INIT = {
  1: { protocolVersion: 1, clientCapabilities: {} },
  2: { protocolVersion: 2, info: { name: 'bench', version: '1' }, capabilities: {} },
} as const
type Version = keyof typeof INIT

const ms = (from: bigint, to: bigint) => Number(to - from) / 1e6

/** Median ms from a prompt sent to its first agent text, after two warm-up prompts. */
async function firstText(version: Version): Promise<number> {
  const client = StdioBenchClient.spawn([cli, '--memory', '--log-level', 'error'])
  try {
    await client.call('initialize', INIT[version])
    const { sessionId } = (await client.call('session/new', { cwd: CWD, mcpServers: [] })) as {
      sessionId: string
    }
    const times: number[] = []
    for (let i = 0; i < PROMPTS; i++) {
      const text = client.untilLine('"sessionUpdate":"agent_message_chunk"')
      const idle = version === 2 ? client.untilLine('"state":"idle"') : undefined
      const start = process.hrtime.bigint()
      await client.call('session/prompt', { sessionId, prompt: [{ type: 'text', text: `hi ${i}` }] })
      times.push(ms(start, await text))
      if (idle) await idle
    }
    return median(times.slice(2))
  } finally {
    await client.stop()
  }
}

interface ResumeRun {
  readonly firstMs: number
  readonly doneMs: number
}

/** One fresh process: initialize, then the replay of the big session at once. */
async function resume(store: string, version: Version): Promise<ResumeRun> {
  const client = StdioBenchClient.spawn([cli, '--store', store, '--log-level', 'error'])
  try {
    await client.call('initialize', INIT[version])
    const [method, params] =
      version === 2
        ? ['session/resume', { sessionId: BIG, cwd: CWD, replayFrom: { type: 'start' } }]
        : ['session/load', { sessionId: BIG, cwd: CWD, mcpServers: [] }]
    const run = await client.timed(method, params)
    return { firstMs: run.firstUpdateMs ?? Number.NaN, doneMs: run.ms }
  } finally {
    await client.stop()
  }
}

export const suite = {
  name: 'acp-v2',
  async run(): Promise<BenchRow[]> {
    const v1Text = await firstText(1)
    const v2Text = await firstText(2)
    const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-v2-'))
    const store = join(dir, 'store')
    mkdirSync(store, { mode: 0o700 })
    const size = (writeBigSession(store) / 1e6).toFixed(0)
    const runs: Record<Version, ResumeRun[]> = { 1: [], 2: [] }
    try {
      await resume(store, 1) // the file cache
      for (let i = 0; i < RESUMES; i++) {
        runs[1].push(await resume(store, 1))
        runs[2].push(await resume(store, 2))
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    const of = (version: Version, key: keyof ResumeRun) => median(runs[version].map((r) => r[key]))
    return [
      row('prompt → first agent text, v2', v2Text, 'the same on v1', v1Text),
      row(
        `resume with replay of a ${size} MB session → first update, v2`,
        of(2, 'firstMs'),
        'v1 session/load',
        of(1, 'firstMs'),
      ),
      row(
        `resume with replay of a ${size} MB session → answer, v2`,
        of(2, 'doneMs'),
        'v1 session/load',
        of(1, 'doneMs'),
      ),
    ]
  },
}

function row(name: string, ours: number, baselineName: string, baseline: number): BenchRow {
  return { group: 'acp v2', name, ours, baselineName, baseline, unit: 'ms', better: 'lower', target: 1.1 }
}
