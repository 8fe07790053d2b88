import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BenchRow, median } from './harness.js'
import {
  HttpBenchClient,
  type RemoteBenchClient,
  residentBytes,
  startServer,
  WsBenchClient,
} from './remote-clients.js'
import { cpuMicros, type SdkClient, sdkRemoteClient, sdkStdioClient } from './remote-sdk.js'
import { StdioBenchClient } from './stdio-client.js'

/**
 * `dsh-acp serve --listen` (issue 37) against stdio, the same built server and the same echo model,
 * both with `--log-level error`: a prompt's first `session/update`, and 2,000 sequential
 * `session/list` round trips, over HTTP (POST + SSE on a keep-alive socket) and WebSocket, each
 * next to stdio in the same run (goal: <= 1.5x on loopback). Then where the time goes:
 * - the transport floor: the same wire with nothing behind it (remote-floor-server.ts), driven by
 *   the same clients, against stdio and against ours;
 * - the server's CPU per `session/list` (from /proc, steady under load where wall time is not);
 * - the SDK's own clients (fetch, ws, ndJsonStream), as an editor runs them.
 * And the server's resident memory per idle connection. Needs `npm run build` first.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const cli = join(root, 'dist', 'cli.cjs')
const SERVER_ARGS = ['--memory', '--log-level', 'error']
const LISTS = 2000
const PROMPTS = 15
const IDLE = 200

type Call = (method: string, params: unknown) => Promise<unknown>

async function listMs(call: Call): Promise<number> {
  const start = process.hrtime.bigint()
  for (let i = 0; i < LISTS; i++) await call('session/list', {})
  return Number(process.hrtime.bigint() - start) / 1e6
}

/** Median ms of two runs of LISTS calls after one warm-up run, and the server's CPU µs per call. */
async function lists(call: Call, serverPid: number): Promise<{ ms: number; cpu: number }> {
  await listMs(call)
  const before = await cpuMicros(serverPid)
  const ms = median([await listMs(call), await listMs(call)])
  return { ms, cpu: ((await cpuMicros(serverPid)) - before) / (2 * LISTS) }
}

async function firstUpdates(client: {
  call: Call
  firstUpdateMs(method: string, params: unknown): Promise<number>
}): Promise<number> {
  const { sessionId } = (await client.call('session/new', { cwd: process.cwd(), mcpServers: [] })) as {
    sessionId: string
  }
  const times: number[] = []
  for (let i = 0; i < PROMPTS; i++)
    times.push(
      await client.firstUpdateMs('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] }),
    )
  return median(times.slice(2))
}

export const suite = {
  name: 'remote',
  async run(): Promise<BenchRow[]> {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-acp-bench-remote-'))
    const tokenFile = join(dir, 'token')
    const stdio = StdioBenchClient.spawn([cli, ...SERVER_ARGS])
    const server = await startServer(cli, SERVER_ARGS, tokenFile)
    const floor = await startFloor()
    const token = readFileSync(tokenFile, 'utf8').trim()
    const serverPid = server.child.pid as number
    try {
      await stdio.call('initialize', { protocolVersion: 1, clientCapabilities: {} })
      const stdioFirst = await firstUpdates({
        call: (method, params) => stdio.call(method, params),
        firstUpdateMs: async (method, params) => (await stdio.timed(method, params)).firstUpdateMs ?? 0,
      })
      const stdioList = await lists((method, params) => stdio.call(method, params), stdio.pid)
      const rows: BenchRow[] = []
      for (const name of ['HTTP', 'WebSocket'] as const) {
        const make = (port: number, key: string): RemoteBenchClient =>
          name === 'HTTP' ? new HttpBenchClient(port, key) : new WsBenchClient(port, key)
        const client = make(server.port, token)
        await client.open()
        const first = await firstUpdates({
          call: client.call.bind(client),
          firstUpdateMs: client.firstUpdateMs.bind(client),
        })
        const list = await lists(client.call.bind(client), serverPid)
        await client.close()
        const bare = make(floor.port, 'none')
        await bare.open()
        const floorList = await lists(bare.call.bind(bare), floor.child.pid as number)
        await bare.close()
        rows.push(
          row(`prompt → first session/update over ${name}`, first, 'stdio', stdioFirst, 'ms', 1.5),
          row(`${LISTS} sequential session/list over ${name}`, list.ms, 'stdio', stdioList.ms, 'ms', 1.5),
          row(
            `  the same calls on the bare ${name} floor (no ACP)`,
            floorList.ms,
            'stdio',
            stdioList.ms,
            'ms',
          ),
          row(
            `  ours over ${name} against its bare floor`,
            list.ms,
            `bare ${name} floor`,
            floorList.ms,
            'ms',
          ),
          row(`  server CPU per session/list over ${name}`, list.cpu, 'stdio server', stdioList.cpu, 'µs'),
          row(`  bare ${name} floor's CPU per call`, floorList.cpu, 'stdio server', stdioList.cpu, 'µs'),
        )
      }
      rows.push(...(await sdkRows(server.port, token)))
      rows.push(await idleMemory(serverPid, server.port, token, stdio.pid))
      return rows
    } finally {
      await stdio.stop()
      for (const child of [server.child, floor.child]) {
        child.kill('SIGTERM')
        if (child.exitCode === null) await once(child, 'exit')
      }
      rmSync(dir, { recursive: true, force: true })
    }
  },
}

/** The bare transport floor (remote-floor-server.js); resolves its port. */
async function startFloor(): Promise<{ child: ChildProcess; port: number }> {
  const script = join(dirname(fileURLToPath(import.meta.url)), 'remote-floor-server.js')
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] })
  const [line] = (await once(child.stdout as NodeJS.ReadableStream, 'data')) as [Buffer]
  return { child, port: Number(line.toString().trim()) }
}

/** 2,000 `session/list` through the SDK's own clients: HTTP and WebSocket against its stdio client. */
async function sdkRows(port: number, token: string): Promise<BenchRow[]> {
  const stdio = await sdkStdioClient([cli, ...SERVER_ARGS])
  const listOf = (client: SdkClient) => () => listMs(() => client.agent.request('session/list', {}))
  const timed = async (client: SdkClient) => {
    const run = listOf(client)
    await run()
    return median([await run(), await run()])
  }
  try {
    const baseline = await timed(stdio)
    const rows: BenchRow[] = []
    for (const [name, url] of [
      ['HTTP', `http://127.0.0.1:${port}/acp`],
      ['WebSocket', `ws://127.0.0.1:${port}/acp`],
    ] as const) {
      const client = await sdkRemoteClient(url, token)
      const ms = await timed(client)
      client.close()
      rows.push(
        row(`${LISTS} session/list, the SDK's ${name} client`, ms, "the SDK's stdio client", baseline, 'ms'),
      )
    }
    return rows
  } finally {
    stdio.close()
    stdio.child.kill('SIGTERM')
  }
}

/** Resident bytes the server grows by per idle connection, next to one whole stdio process. */
async function idleMemory(pid: number, port: number, token: string, stdioPid: number): Promise<BenchRow> {
  const before = await residentBytes(pid)
  const clients: RemoteBenchClient[] = []
  for (let i = 0; i < IDLE / 2; i++) {
    for (const client of [new WsBenchClient(port, token), new HttpBenchClient(port, token)]) {
      await client.open()
      clients.push(client)
    }
  }
  const after = await residentBytes(pid)
  for (const client of clients) await client.close()
  const perConnection = Math.max(0, after - before) / IDLE
  return {
    group: 'remote',
    name: `server memory per idle connection (${IDLE}: half HTTP+SSE, half WebSocket)`,
    ours: perConnection / 2 ** 20,
    baselineName: 'one stdio agent process (RSS)',
    baseline: (await residentBytes(stdioPid)) / 2 ** 20,
    unit: 'MB',
    better: 'lower',
    note: 'resident set growth of the server / connections',
  }
}

function row(
  name: string,
  ours: number,
  baselineName: string,
  baseline: number,
  unit: 'ms' | 'µs',
  target?: number,
): BenchRow {
  return {
    group: 'remote',
    name,
    ours,
    baselineName,
    baseline,
    unit,
    better: 'lower',
    ...(target !== undefined && { target }),
  }
}
