import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BenchRow, median } from './harness.js'
import { NdjsonBenchClient, opsPerSecond, rawEchoScript as rawScript } from './ndjson-client.js'

/**
 * The ACP server's rows (issues 4 and 13): round trips per second of `session/list` to the real
 * built server, spawned as a child over OS pipes, one at a time and 64 in flight, in three store
 * configurations: in memory (`--memory`), on disk with 0 sessions and with 1,000 (a page of 50).
 * Next to each, in the same run and driven by the same client: a minimal raw NDJSON server (the
 * limit: split, parse, answer) and an agent on the official SDK's agent side (a peer), both
 * answering with the very result our server gave in that configuration (a fixed list). An
 * independent measurement disagreed with this bench because it listed an on-disk store while this
 * bench listed an in-memory one: a store on disk read its directory on every request. Later the
 * on-disk rows swung between runs (0.45-1.8x the SDK agent) because every 2 s one list waited for a
 * stat of every file (25-70 ms on 1,000 files under load), which a run of 3,000 round trips hit
 * or missed; that check now runs in the background.
 * Also: time from spawn to the `initialize` answer, next to spawning `node -e 0`.
 * Needs `npm run build` first (the bench compiles only bench/); `DSH_BENCH_CLI` names another cli.cjs.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
/** `DSH_BENCH_CLI` measures another build of the server (e.g. an experiment) in these rows. */
const cli = process.env.DSH_BENCH_CLI ?? join(root, 'dist', 'cli.cjs')
const sdkModule = import.meta.resolve('@agentclientprotocol/sdk')

const METHOD = 'session/list'
const PARAMS = {}
const INITIALIZE = { protocolVersion: 1, clientCapabilities: {} }
const SEQUENTIAL = 3000
const PIPELINED = 30000
const IN_FLIGHT = 64
const RUNS = 5
const SPAWNS = 7

const built = process.env.DSH_BENCH_CLI ?? 'dist/cli.cjs'
const ours = { name: `dsh-acp (${built} --memory)`, command: process.execPath, args: [cli, '--memory'] }

/** A peer: the official SDK's agent side, answering `initialize` and ${METHOD} with `result`. */
function sdkScript(result: unknown, initializeResult: unknown): string {
  return `
import { Readable, Writable } from 'node:stream'
const acp = await import(${JSON.stringify(sdkModule)})
const result = ${JSON.stringify(result)}
const initializeResult = ${JSON.stringify(initializeResult)}
acp
  .agent({ name: 'sdk-peer' })
  .onRequest('initialize', () => initializeResult)
  .onRequest(${JSON.stringify(METHOD)}, () => result)
  .connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)))
`
}

function nodeScript(name: string, script: string) {
  return { name, command: process.execPath, args: ['--input-type=module', '-e', script] }
}

type Server = ReturnType<typeof nodeScript>

async function started(server: Server): Promise<NdjsonBenchClient> {
  const client = NdjsonBenchClient.spawn(server.command, server.args)
  await client.call('initialize', INITIALIZE)
  await client.roundTrips(500, 8, METHOD, PARAMS) // warm up, and proves the server answers
  return client
}

/** Medians of `RUNS` runs per server, the servers' runs interleaved so drift hits all alike. */
async function roundTrips(servers: readonly Server[], total: number, window: number): Promise<number[]> {
  const clients: NdjsonBenchClient[] = []
  try {
    for (const server of servers) clients.push(await started(server))
    const runs = servers.map((): number[] => [])
    for (let run = 0; run < RUNS; run++) {
      for (const [i, client] of clients.entries()) {
        runs[i]?.push(await opsPerSecond(total, () => client.roundTrips(total, window, METHOD, PARAMS)))
      }
    }
    return runs.map(median)
  } finally {
    await Promise.all(clients.map((client) => client.stop()))
  }
}

/** ms from spawn to the `initialize` answer (then the child is stopped, untimed). */
async function spawnToInitialize(server: Server): Promise<number> {
  const start = process.hrtime.bigint()
  const client = NdjsonBenchClient.spawn(server.command, server.args)
  await client.call('initialize', INITIALIZE)
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  await client.stop()
  return ms
}

async function spawnNothing(): Promise<number> {
  const start = process.hrtime.bigint()
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' })
  await once(child, 'exit')
  return Number(process.hrtime.bigint() - start) / 1e6
}

async function startupTimes(servers: readonly Server[]): Promise<number[]> {
  const runs = [...servers.map((): number[] => []), []] as number[][]
  for (let i = 0; i < SPAWNS + 1; i++) {
    const times: number[] = [] // spawns one at a time
    for (const server of servers) times.push(await spawnToInitialize(server))
    times.push(await spawnNothing())
    if (i === 0) continue // spawn 0 warms the file cache
    for (const [j, ms] of times.entries()) runs[j]?.push(ms)
  }
  return runs.map(median)
}

function checkBuild(): void {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`)
  const built = statSync(cli).mtimeMs
  const source = statSync(join(root, 'src', 'acp', 'connection', 'connection.ts')).mtimeMs
  if (source > built) process.stderr.write('bench: warning: dist/ looks older than src/; run npm run build\n')
}

/** A store directory holding `count` small sessions (a header and two events each). */
function storeWith(count: number): string {
  const dir = mkdtempSync(join(tmpdir(), `dsh-bench-list-${count}-`))
  for (let i = 0; i < count; i++) {
    const id = `stored_${String(i).padStart(5, '0')}`
    const createdAt = new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString()
    const header = { version: 1, id, createdAt, cwd: '/bench' }
    const events = [
      { seq: 1, type: 'context/note', time: createdAt, data: { text: `note ${i}` } },
      { seq: 2, type: 'session/title', time: createdAt, data: { title: `session ${i}` } },
    ]
    writeFileSync(
      join(dir, `${id}.jsonl`),
      [header, ...events].map((l) => `${JSON.stringify(l)}\n`).join(''),
      {
        mode: 0o600,
      },
    )
  }
  return dir
}

interface Configuration {
  readonly label: string
  readonly ours: Server
  readonly dir?: string
}

/** Our server over one store configuration, next to the raw echo and the SDK agent giving the same answer. */
async function requestRows(config: Configuration): Promise<BenchRow[]> {
  const probe = await started(config.ours)
  const result = await probe.call(METHOD, PARAMS)
  const initializeResult = await probe.call('initialize', INITIALIZE)
  await probe.stop()
  const raw = nodeScript('raw NDJSON echo server', rawScript(result))
  const sdk = nodeScript('agent on the official SDK (fixed list)', sdkScript(result, initializeResult))
  const servers = [config.ours, raw, sdk]
  const [seqOurs, seqRaw, seqSdk] = (await roundTrips(servers, SEQUENTIAL, 1)) as [number, number, number]
  const [pipOurs, pipRaw, pipSdk] = (await roundTrips(servers, PIPELINED, IN_FLIGHT)) as [
    number,
    number,
    number,
  ]
  const rows: BenchRow[] = []
  const pair = (
    name: string,
    value: number,
    against: Server,
    baseline: number,
    target: number | undefined,
    note: string,
  ) =>
    rows.push({
      group: 'protocol',
      name,
      ours: value,
      baselineName: against.name,
      baseline,
      unit: 'ops/s',
      better: 'higher',
      ...(target !== undefined && { target }),
      note,
    })
  const one = `${METHOD} round trips, 1 in flight, ${config.label}`
  const many = `${METHOD} round trips, ${IN_FLIGHT} in flight, ${config.label}`
  pair(
    one,
    seqOurs,
    sdk,
    seqSdk,
    1.0,
    `${built}; same result, same client; ${SEQUENTIAL} per run, ${RUNS} runs`,
  )
  pair(one, seqOurs, raw, seqRaw, 0.7, 'the limit: split, parse, answer')
  // Information only: the target of 0.7x raw echo is retired (an editor lists once per view).
  pair(many, pipOurs, raw, pipRaw, undefined, `${PIPELINED} per run, ${RUNS} runs; no target`)
  pair(many, pipOurs, sdk, pipSdk, 1.0, 'same result, same client')
  return rows
}

export const suite = {
  name: 'protocol',
  async run(): Promise<BenchRow[]> {
    checkBuild()
    const empty = storeWith(0)
    const thousand = storeWith(1000)
    const onDisk = (dir: string) => ({
      name: `dsh-acp (${built} --store DIR)`,
      command: process.execPath,
      args: [cli, '--store', dir],
    })
    const rows: BenchRow[] = []
    try {
      for (const config of [
        { label: 'in-memory store', ours },
        { label: 'on-disk store, 0 sessions', ours: onDisk(empty) },
        { label: 'on-disk store, 1,000 sessions (page of 50)', ours: onDisk(thousand) },
      ]) {
        rows.push(...(await requestRows(config)))
      }
      const sdk = nodeScript('agent on the official SDK', sdkScript({ sessions: [] }, {}))
      const [startOurs, startDisk, startSdk, startNode] = (await startupTimes([
        ours,
        onDisk(empty),
        sdk,
      ])) as [number, number, number, number]
      const spawnRow = (
        name: string,
        value: number,
        baselineName: string,
        baseline: number,
        target?: number,
      ) =>
        rows.push({
          group: 'start',
          name,
          ours: value,
          baselineName,
          baseline,
          unit: 'ms',
          better: 'lower',
          ...(target !== undefined && { target }),
          note: `${SPAWNS} spawns each, one at a time, interleaved`,
        })
      spawnRow(
        `spawn to initialize answer (${built} --memory)`,
        startOurs,
        'node -e 0 (spawn to exit)',
        startNode,
        1.5,
      )
      spawnRow(
        `spawn to initialize answer (${built} --store DIR)`,
        startDisk,
        'node -e 0 (spawn to exit)',
        startNode,
        1.5,
      )
      spawnRow(
        `spawn to initialize answer (${built} --memory)`,
        startOurs,
        'agent on the official SDK',
        startSdk,
      )
    } finally {
      rmSync(empty, { recursive: true, force: true })
      rmSync(thousand, { recursive: true, force: true })
    }
    return rows
  },
}
