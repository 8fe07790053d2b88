import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BenchRow, median } from './harness.js'
import { NdjsonBenchClient, opsPerSecond, rawEchoScript as rawScript } from './ndjson-client.js'

/**
 * The ACP server's rows (issue 4): round trips per second of a cheap request (`session/list` on
 * an empty in-memory store) to the real built server, `node dist/cli.js --memory`, spawned as a
 * child over OS pipes, one at a time and 64 in flight. Next to it, in the same run and driven by
 * the same client: a minimal raw NDJSON server (the limit: split, parse, answer) and an agent on
 * the official SDK's agent side (a peer). Both answer with the very result our server gave.
 * Also: time from spawn to the `initialize` response, next to spawning `node -e 0`.
 * Needs `npm run build` first (the bench compiles only bench/); `DSH_BENCH_CLI` names another cli.js.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
/** `DSH_BENCH_CLI` measures another build of the server (e.g. an experiment) in these rows. */
const cli = process.env.DSH_BENCH_CLI ?? join(root, 'dist', 'cli.js')
const sdkModule = import.meta.resolve('@agentclientprotocol/sdk')

const METHOD = 'session/list'
const PARAMS = {}
const INITIALIZE = { protocolVersion: 1, clientCapabilities: {} }
const SEQUENTIAL = 3000
const PIPELINED = 30000
const IN_FLIGHT = 64
const RUNS = 5
const SPAWNS = 7

const built = process.env.DSH_BENCH_CLI ?? 'dist/cli.js'
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
  const source = statSync(join(root, 'src', 'protocol', 'connection.ts')).mtimeMs
  if (source > built) process.stderr.write('bench: warning: dist/ looks older than src/; run npm run build\n')
}

export const suite = {
  name: 'protocol',
  async run(): Promise<BenchRow[]> {
    checkBuild()
    const probe = await started(ours)
    const result = await probe.call(METHOD, PARAMS)
    const initializeResult = await probe.call('initialize', INITIALIZE)
    await probe.stop()
    const raw = nodeScript('raw NDJSON echo server', rawScript(result))
    const sdk = nodeScript('agent on the official SDK', sdkScript(result, initializeResult))
    const servers = [ours, raw, sdk]
    const [seqOurs, seqRaw, seqSdk] = (await roundTrips(servers, SEQUENTIAL, 1)) as [number, number, number]
    const [pipOurs, pipRaw, pipSdk] = (await roundTrips(servers, PIPELINED, IN_FLIGHT)) as [
      number,
      number,
      number,
    ]
    const [startOurs, startSdk, startNode] = (await startupTimes([ours, sdk])) as [number, number, number]
    const rows: BenchRow[] = []
    const pair = (
      name: string,
      value: number,
      against: Server,
      baseline: number,
      target: number,
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
        target,
        note,
      })
    const one = `${METHOD} round trips, 1 in flight`
    const many = `${METHOD} round trips, ${IN_FLIGHT} in flight`
    pair(one, seqOurs, raw, seqRaw, 0.7, `${built} over pipes; ${SEQUENTIAL} per run, ${RUNS} runs`)
    pair(one, seqOurs, sdk, seqSdk, 1.0, 'same result, same client')
    pair(many, pipOurs, raw, pipRaw, 0.7, `${built} over pipes; ${PIPELINED} per run, ${RUNS} runs`)
    pair(many, pipOurs, sdk, pipSdk, 1.0, 'same result, same client')
    rows.push(
      {
        group: 'protocol',
        name: 'spawn to initialize response',
        ours: startOurs,
        baselineName: 'node -e 0 (spawn to exit)',
        baseline: startNode,
        unit: 'ms',
        better: 'lower',
        note: `${SPAWNS} spawns each, one at a time`,
      },
      {
        group: 'protocol',
        name: 'spawn to initialize response',
        ours: startOurs,
        baselineName: 'agent on the official SDK',
        baseline: startSdk,
        unit: 'ms',
        better: 'lower',
        note: 'a peer, for scale',
      },
    )
    return rows
  },
}
