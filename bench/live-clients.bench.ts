import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BenchRow, median } from './harness.js'
import { startServer, WsBenchClient } from './remote-clients.js'

/**
 * Issue 38, the cost per attached client of a streaming turn: one `dsh-acp serve --listen` (the
 * built server, scripted model, `--memory`), N WebSocket clients on one session (one prompts, the
 * others loaded it), N = 1, 2, 4, 8. Timed: from the prompt sent to the moment every client has
 * the turn's last update (the prompter its answer, each other client the update carrying
 * `_meta.dsh.turnEnd`), a turn of {@link CHUNKS} streamed text chunks; and the server's CPU time
 * (user + system, from /proc) per turn. Baseline, same run: the same turn with one client. Rows
 * give the ratio and, in the note, the cost of each client beyond the first.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const cli = process.env.DSH_BENCH_CLI ?? join(root, 'dist', 'cli.cjs')
const CHUNKS = 400
const PROMPTS = 17
const COUNTS = [1, 2, 4, 8]

/** The server's CPU time so far, in ms (clock ticks of 10 ms: summed over many turns). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

interface Measured {
  readonly turnMs: number
  readonly cpuMs: number
}

/** N clients on one session of their own: `turn()` runs one prompt and resolves its ms and CPU ms. */
interface Group {
  turn(): Promise<Measured>
  close(): Promise<void>
}

async function group(port: number, token: string, pid: number, count: number, cwd: string): Promise<Group> {
  const clients = Array.from({ length: count }, () => new WsBenchClient(port, token))
  for (const client of clients) await client.open()
  const [prompter, ...watchers] = clients as [WsBenchClient, ...WsBenchClient[]]
  const { sessionId } = (await prompter.call('session/new', { cwd, mcpServers: [] })) as { sessionId: string }
  for (const watcher of watchers) await watcher.call('session/load', { sessionId, cwd, mcpServers: [] })
  let run = 0
  return {
    async turn() {
      const ended = watchers.map(
        (watcher) =>
          new Promise<void>((resolve) => {
            watcher.onUpdate = (line) => {
              if (line.includes('"turnEnd"')) resolve()
            }
          }),
      )
      const cpuBefore = cpuMs(pid)
      const start = process.hrtime.bigint()
      await Promise.all([
        prompter.call('session/prompt', { sessionId, prompt: [{ type: 'text', text: `go ${run++}` }] }),
        ...ended,
      ])
      return { turnMs: Number(process.hrtime.bigint() - start) / 1e6, cpuMs: cpuMs(pid) - cpuBefore }
    },
    async close() {
      for (const client of clients) await client.close()
    },
  }
}

/**
 * Runs the groups' turns round by round (one turn of each group per round, so that the machine's
 * load falls on every count alike); the first two rounds warm up. Per count: the median turn
 * time, and the mean CPU time (ticks of 10 ms: a mean over the rounds).
 */
async function measure(groups: ReadonlyMap<number, Group>): Promise<Map<number, Measured>> {
  const samples = new Map<number, Measured[]>([...groups.keys()].map((count) => [count, []]))
  for (let round = 0; round < PROMPTS; round++) {
    for (const [count, one] of groups) {
      const measured = await one.turn()
      if (round >= 2) samples.get(count)?.push(measured)
    }
  }
  return new Map(
    [...samples].map(([count, list]) => [
      count,
      {
        turnMs: median(list.map((m) => m.turnMs)),
        cpuMs: list.reduce((sum, m) => sum + m.cpuMs, 0) / list.length,
      },
    ]),
  )
}

export const suite = {
  name: 'live-clients',
  async run(): Promise<BenchRow[]> {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-live-clients-'))
    const words = Array.from({ length: CHUNKS }, (_, i) => ({ text: `word${i} ` }))
    writeFileSync(
      join(dir, 'model.json'),
      JSON.stringify({ turns: Array.from({ length: PROMPTS }, () => [words]) }),
    )
    const tokenFile = join(dir, 'token')
    const args = ['--memory', '--log-level', 'error', '--model', `script:${join(dir, 'model.json')}`]
    const server = await startServer(cli, args, tokenFile)
    const token = readFileSync(tokenFile, 'utf8').trim()
    try {
      const pid = server.child.pid as number
      const groups = new Map<number, Group>()
      for (const count of COUNTS) groups.set(count, await group(server.port, token, pid, count, dir))
      const results = await measure(groups)
      for (const one of groups.values()) await one.close()
      const one = results.get(1) as Measured
      return COUNTS.slice(1).flatMap((count) => {
        const n = results.get(count) as Measured
        const perClient = (n.turnMs - one.turnMs) / (count - 1)
        const perClientCpu = (n.cpuMs - one.cpuMs) / (count - 1)
        return [
          {
            group: 'live-clients',
            name: `a ${CHUNKS}-chunk streaming turn, ${count} clients attached (until every client has its end)`,
            ours: n.turnMs,
            baselineName: 'the same turn, 1 client',
            baseline: one.turnMs,
            unit: 'ms',
            better: 'lower',
            note: `each client beyond the first: ${perClient.toFixed(2)} ms of turn time`,
          },
          {
            group: 'live-clients',
            name: `server CPU per turn, ${count} clients attached`,
            ours: n.cpuMs,
            baselineName: 'the same turn, 1 client',
            baseline: one.cpuMs,
            unit: 'ms',
            better: 'lower',
            note: `each client beyond the first: ${perClientCpu.toFixed(1)} ms CPU (/proc ticks: 10 ms)`,
          },
        ]
      })
    } finally {
      server.child.kill()
      rmSync(dir, { recursive: true, force: true })
    }
  },
}
