import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { type BenchRow, median } from './harness.js'
import { StdioBenchClient } from './stdio-client.js'

/**
 * Issue 22 #17, the first `session/load` of a new process: `dsh-acp --store DIR` spawned fresh
 * each run; the time from the load request to its first `session/update`, for a small stored
 * session (10 tool-using turns), loaded right after `initialize` and after a pause (an editor
 * loads when the user picks a session). Baseline: the same kind of load of a second session in
 * that process (warm). Also spawn → `initialize` answered, which the warm-up must not slow.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const cli = process.env.DSH_BENCH_CLI ?? join(root, 'dist', 'cli.cjs')
const RUNS = 9
const CWD = tmpdir()
const INITIALIZE = { protocolVersion: 1, clientCapabilities: {} }
/** What an editor's user takes at least to pick a session after the agent started. */
const PAUSE_MS = 300

function writeSession(dir: string, id: string): void {
  const time = '2024-01-01T00:00:01.000Z'
  const lines: unknown[] = [{ version: 1, id, createdAt: '2024-01-01T00:00:00.000Z', cwd: CWD }]
  let seq = 0
  const event = (type: string, data: unknown) => lines.push({ seq: ++seq, type, time, data })
  for (let turn = 1; turn <= 10; turn++) {
    event('turn/start', { turn })
    event('user/message', { turn, content: [{ type: 'text', text: `question ${turn}` }] })
    event('step/start', { turn, step: 1 })
    event('assistant/message', { turn, step: 1, content: `let me look ${turn}`, thought: 'a file' })
    event('tool/call', {
      turn,
      step: 1,
      callId: `c${turn}`,
      name: 'read_text_file',
      input: { path: 'a.txt' },
    })
    event('tool/result', { turn, step: 1, callId: `c${turn}`, output: 'the text' })
    event('step/end', { turn, step: 1 })
    event('step/start', { turn, step: 2 })
    event('assistant/message', { turn, step: 2, content: `answer ${turn}` })
    event('step/end', { turn, step: 2 })
    event('turn/end', { turn, reason: 'completed' })
  }
  writeFileSync(join(dir, `${id}.jsonl`), lines.map((l) => `${JSON.stringify(l)}\n`).join(''), {
    mode: 0o600,
  })
}

interface ColdRun {
  readonly initializeMs: number
  readonly coldMs: number
  readonly warmMs: number
}

/** A `session/list` sent the moment `initialize` is answered: how long the server takes to be built. */
async function listRightAfterInitialize(store: string): Promise<number> {
  const client = StdioBenchClient.spawn([cli, '--store', store])
  try {
    await client.call('initialize', INITIALIZE)
    return (await client.timed('session/list', {})).ms
  } finally {
    await client.stop()
  }
}

async function run(store: string, pauseMs: number): Promise<ColdRun> {
  const start = process.hrtime.bigint()
  const client = StdioBenchClient.spawn([cli, '--store', store])
  try {
    await client.call('initialize', INITIALIZE)
    const initializeMs = Number(process.hrtime.bigint() - start) / 1e6
    if (pauseMs > 0) await delay(pauseMs)
    const load = (sessionId: string) => client.timed('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    const cold = await load('first')
    const warm = await load('second')
    return {
      initializeMs,
      coldMs: cold.firstUpdateMs ?? Number.NaN,
      warmMs: warm.firstUpdateMs ?? Number.NaN,
    }
  } finally {
    await client.stop()
  }
}

export const suite = {
  name: 'load-cold',
  async run(): Promise<BenchRow[]> {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-cold-'))
    const store = join(dir, 'store')
    mkdirSync(store, { mode: 0o700 })
    writeSession(store, 'first')
    writeSession(store, 'second')
    const now: ColdRun[] = []
    const paused: ColdRun[] = []
    const lists: number[] = []
    try {
      await run(store, 0) // the file cache
      for (let i = 0; i < RUNS; i++) {
        now.push(await run(store, 0))
        paused.push(await run(store, PAUSE_MS))
        lists.push(await listRightAfterInitialize(store))
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    const row = (
      name: string,
      ours: number,
      baselineName: string,
      baseline: number,
      note: string,
      target?: number,
    ) => ({
      group: 'session io',
      name,
      ours,
      baselineName,
      baseline,
      unit: 'ms' as const,
      better: 'lower' as const,
      ...(target !== undefined && { target }),
      note,
    })
    const cold = median(paused.map((r) => r.coldMs))
    return [
      row(
        `first session/load of a new process, ${PAUSE_MS} ms after initialize: request to first session/update`,
        cold,
        'a second session/load in that process',
        median(paused.map((r) => r.warmMs)),
        `target: under 15 ms (ours ${cold.toFixed(1)} ms); fresh dist/cli.cjs --store each run, ${RUNS} runs, 10-turn session`,
      ),
      row(
        'first session/load of a new process, right after initialize: request to first session/update',
        median(now.map((r) => r.coldMs)),
        'session/list right after initialize (the server still being built)',
        median(lists),
        'the load sent the moment initialize is answered waits for the server to be built (initialize is answered before)',
      ),
      row(
        'spawn to initialize answered (the runs above)',
        median([...now, ...paused].map((r) => r.initializeMs)),
        'itself',
        median([...now, ...paused].map((r) => r.initializeMs)),
        'the warm-up after initialize must not slow this',
      ),
    ]
  },
}
