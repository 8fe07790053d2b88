import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BenchRow, median } from './harness.js'
import { HttpBenchClient, residentBytes, startServer, WsBenchClient } from './remote-clients.js'
import { StdioBenchClient } from './stdio-client.js'

/**
 * `dsh-acp serve --listen` (issue 37) against stdio, the same built server and the same echo model:
 * a prompt's first `session/update`, and 2,000 sequential `session/list` round trips, over HTTP
 * (POST + SSE on a keep-alive socket) and WebSocket, each next to stdio in the same run (goal:
 * <= 1.5x on loopback); and the server's resident memory per idle connection (initialized, stream
 * open), next to the memory of one whole stdio process (what a client costs when each starts its
 * own agent). Needs `npm run build` first.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const cli = join(root, 'dist', 'cli.js')
const LISTS = 2000
const PROMPTS = 15
const IDLE = 200

async function listMs(call: (method: string, params: unknown) => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint()
  for (let i = 0; i < LISTS; i++) await call('session/list', {})
  return Number(process.hrtime.bigint() - start) / 1e6
}

async function firstUpdates(client: {
  call(method: string, params: unknown): Promise<unknown>
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
    const stdio = StdioBenchClient.spawn([cli, '--memory'])
    const server = await startServer(cli, ['--memory', '--log-level', 'error'], tokenFile)
    const token = readFileSync(tokenFile, 'utf8').trim()
    const rows: BenchRow[] = []
    try {
      await stdio.call('initialize', { protocolVersion: 1, clientCapabilities: {} })
      const stdioClient = {
        call: (method: string, params: unknown) => stdio.call(method, params),
        firstUpdateMs: async (method: string, params: unknown) =>
          (await stdio.timed(method, params)).firstUpdateMs ?? 0,
      }
      const stdioFirst = await firstUpdates(stdioClient)
      await listMs(stdioClient.call)
      const stdioList = median([await listMs(stdioClient.call), await listMs(stdioClient.call)])
      for (const [name, client] of [
        ['HTTP', new HttpBenchClient(server.port, token)],
        ['WebSocket', new WsBenchClient(server.port, token)],
      ] as const) {
        await client.open()
        const first = await firstUpdates(client)
        await listMs((m, p) => client.call(m, p))
        const list = median([
          await listMs((m, p) => client.call(m, p)),
          await listMs((m, p) => client.call(m, p)),
        ])
        await client.close()
        rows.push(
          row(`prompt → first session/update over ${name}`, first, 'stdio', stdioFirst, 'ms', 1.5),
          row(`${LISTS} sequential session/list over ${name}`, list, 'stdio', stdioList, 'ms', 1.5),
        )
      }
      rows.push(await idleMemory(server.child.pid as number, server.port, token, stdio.pid))
    } finally {
      await stdio.stop()
      server.child.kill('SIGTERM')
      await once(server.child, 'exit')
      rmSync(dir, { recursive: true, force: true })
    }
    return rows
  },
}

/** Resident bytes the server grows by per idle connection, next to one whole stdio process. */
async function idleMemory(pid: number, port: number, token: string, stdioPid: number): Promise<BenchRow> {
  const before = await residentBytes(pid)
  const clients: WsBenchClient[] = []
  const streams: HttpBenchClient[] = []
  for (let i = 0; i < IDLE / 2; i++) {
    const ws = new WsBenchClient(port, token)
    await ws.open()
    clients.push(ws)
    const http = new HttpBenchClient(port, token)
    await http.open()
    streams.push(http)
  }
  const after = await residentBytes(pid)
  for (const client of [...clients, ...streams]) await client.close()
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
  unit: 'ms',
  target: number,
): BenchRow {
  return { group: 'remote', name, ours, baselineName, baseline, unit, better: 'lower', target }
}
