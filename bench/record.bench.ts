import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BenchRow, median } from './harness.js'
import { NdjsonBenchClient, opsPerSecond } from './ndjson-client.js'

/**
 * `dsh-acp record` (issue 12): `session/list` round trips to the built server (`--memory`) through
 * the recording proxy, next to the same server without it, in the same run: one at a time (the
 * latency the proxy adds) and 64 in flight (its throughput). Needs `npm run build` first.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const cli = join(root, 'dist', 'cli.cjs')
const SEQUENTIAL = 2000
const PIPELINED = 20000
const IN_FLIGHT = 64
const RUNS = 5

async function started(args: readonly string[]): Promise<NdjsonBenchClient> {
  const client = NdjsonBenchClient.spawn(process.execPath, args)
  await client.call('initialize', { protocolVersion: 1, clientCapabilities: {} })
  await client.roundTrips(500, 8, 'session/list', {})
  return client
}

/** Medians of RUNS runs, direct and recorded interleaved so drift hits both alike. */
async function measure(total: number, window: number, out: string): Promise<[number, number]> {
  const direct = await started([cli, '--memory', '--log-level', 'error'])
  const recorded = await started([
    cli,
    'record',
    '--out',
    out,
    '--',
    process.execPath,
    cli,
    '--memory',
    '--log-level',
    'error',
  ])
  try {
    const runs: [number[], number[]] = [[], []]
    for (let run = 0; run < RUNS; run++) {
      runs[0].push(await opsPerSecond(total, () => direct.roundTrips(total, window, 'session/list', {})))
      runs[1].push(await opsPerSecond(total, () => recorded.roundTrips(total, window, 'session/list', {})))
    }
    return [median(runs[0]), median(runs[1])]
  } finally {
    await Promise.all([direct.stop(), recorded.stop()])
  }
}

export const suite = {
  name: 'record',
  async run(): Promise<BenchRow[]> {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-record-'))
    try {
      const [seqDirect, seqRecorded] = await measure(SEQUENTIAL, 1, join(dir, 'sequential.jsonl'))
      const [pipDirect, pipRecorded] = await measure(PIPELINED, IN_FLIGHT, join(dir, 'pipelined.jsonl'))
      const row = (name: string, ours: number, baseline: number, note: string): BenchRow => ({
        group: 'record',
        name,
        ours,
        baselineName: 'the same server without dsh-acp record',
        baseline,
        unit: 'ops/s',
        better: 'higher',
        note,
      })
      return [
        row(
          'session/list round trips through dsh-acp record, 1 in flight',
          seqRecorded,
          seqDirect,
          `every message recorded; ${SEQUENTIAL} per run, ${RUNS} runs`,
        ),
        row(
          `session/list round trips through dsh-acp record, ${IN_FLIGHT} in flight`,
          pipRecorded,
          pipDirect,
          `${PIPELINED} per run, ${RUNS} runs`,
        ),
      ]
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
}
