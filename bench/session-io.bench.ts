import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { copyFile, open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BenchRow, median } from './harness.js'
import { memoryOf, StdioBenchClient } from './stdio-client.js'

/**
 * Issue 13, load, fork and memory, end to end: the built server (`dist/cli.cjs --store DIR`) is
 * spawned fresh for each run and driven over its stdio pipes.
 * - `session/load` of a ~50 MB stored session: time to the first `session/update` and to the
 *   answer, next to a raw relay spawned the same way (it stream-reads the same file, parses each
 *   line, serializes one notification per event and writes it to the same kind of pipe).
 * - `session/fork` of that session (loaded first, untimed) over the wire, next to `fs.copyFile` +
 *   fdatasync of the same file in this process.
 * - Memory of the server process: idle, after listing 1,000 stored sessions, peak while loading
 *   the 50 MB session, with it loaded, and after `session/close` (then a second of quiet).
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const cli = process.env.DSH_BENCH_CLI ?? join(root, 'dist', 'cli.cjs')
const built = process.env.DSH_BENCH_CLI ?? 'dist/cli.cjs'
const RUNS = 5
/** An existing directory: the server refuses a session cwd that does not exist. */
const CWD = tmpdir()
const INITIALIZE = { protocolVersion: 1, clientCapabilities: {} }
export const BIG = 'big_session'

/** A temporary directory holding a store (mode 0700) with the big session in it, and its size in MB. */
export function bigSessionStore(prefix: string): { dir: string; store: string; size: number } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const store = join(dir, 'store')
  mkdirSync(store, { mode: 0o700 })
  return { dir, store, size: writeBigSession(store) / 1e6 }
}

/** ~50 MB: 200 turns, each a short prompt and a ~250 KB answer (two updates per turn). */
export function writeBigSession(dir: string): number {
  const time = '2024-01-01T00:00:01.000Z'
  const lines: unknown[] = [{ version: 1, id: BIG, createdAt: '2024-01-01T00:00:00.000Z', cwd: CWD }]
  let seq = 0
  const event = (type: string, data: unknown) => lines.push({ seq: ++seq, type, time, data })
  for (let turn = 1; turn <= 200; turn++) {
    event('turn/start', { turn })
    event('user/message', { turn, content: [{ type: 'text', text: `question ${turn}` }] })
    event('step/start', { turn, step: 1 })
    event('assistant/message', { turn, step: 1, content: `answer ${turn} `.padEnd(250_000, 'lorem ipsum ') })
    event('step/end', { turn, step: 1 })
    event('turn/end', { turn, reason: 'completed' })
  }
  const path = join(dir, `${BIG}.jsonl`)
  writeFileSync(path, lines.map((l) => `${JSON.stringify(l)}\n`).join(''), { mode: 0o600 })
  return statSync(path).size
}

function writeSmallSessions(dir: string, count: number): void {
  for (let i = 0; i < count; i++) {
    const id = `small_${String(i).padStart(5, '0')}`
    const createdAt = new Date(Date.UTC(2023, 0, 1) + i * 1000).toISOString()
    writeFileSync(join(dir, `${id}.jsonl`), `${JSON.stringify({ version: 1, id, createdAt, cwd: CWD })}\n`, {
      mode: 0o600,
    })
  }
}

/** The raw relay: stream-read, parse each line, one notification per event, same pipe. */
export function relayScript(): string {
  return `
import { createReadStream } from 'node:fs'
let rest = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', async (text) => {
  const lines = (rest + text).split('\\n')
  rest = lines.pop()
  for (const line of lines) {
    const request = JSON.parse(line)
    if (request.method === 'session/load') {
      let carry = ''
      let header
      for await (const chunk of createReadStream(request.params.path, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
        const parts = (carry + chunk).split('\\n')
        carry = parts.pop()
        for (const part of parts) {
          const value = JSON.parse(part)
          if (header === undefined) { header = value; continue }
          const out = JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: header.id, update: value } }) + '\\n'
          if (!process.stdout.write(out)) await new Promise((resolve) => process.stdout.once('drain', resolve))
        }
      }
    }
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: {} }) + '\\n')
  }
})
`
}

interface LoadRun {
  firstMs: number
  totalMs: number
  updates: number
}

/** `nodeArgs`: flags for the server's Node (`--expose-gc` turns on the memory release after a close). */
async function loadOurs(
  dir: string,
  memory?: MemoryFigures,
  nodeArgs: readonly string[] = [],
): Promise<LoadRun> {
  const client = StdioBenchClient.spawn([...nodeArgs, cli, '--store', dir])
  try {
    await client.call('initialize', INITIALIZE)
    if (memory) {
      await quiet()
      memory.idle.push(memoryOf(client.pid).rss)
      await client.call('session/list', { limit: 1000 })
      memory.listed.push(memoryOf(client.pid).rss)
    }
    const { ms, firstUpdateMs } = await client.timed('session/load', {
      sessionId: BIG,
      cwd: CWD,
      mcpServers: [],
    })
    if (memory) {
      const { rss, peak } = memoryOf(client.pid)
      memory.peak.push(peak)
      memory.loaded.push(rss)
      await client.call('session/close', { sessionId: BIG })
      await quiet()
      memory.closed.push(memoryOf(client.pid).rss)
    }
    return { firstMs: firstUpdateMs ?? Number.NaN, totalMs: ms, updates: client.updates }
  } finally {
    await client.stop()
  }
}

async function loadRelay(path: string): Promise<LoadRun> {
  const client = StdioBenchClient.spawn(['--input-type=module', '-e', relayScript()])
  try {
    await client.call('initialize', INITIALIZE) // answered {}: the relay is up
    const { ms, firstUpdateMs } = await client.timed('session/load', { path })
    return { firstMs: firstUpdateMs ?? Number.NaN, totalMs: ms, updates: client.updates }
  } finally {
    await client.stop()
  }
}

async function forkOurs(dir: string): Promise<number> {
  const client = StdioBenchClient.spawn([cli, '--store', dir])
  try {
    await client.call('initialize', INITIALIZE)
    await client.call('session/load', { sessionId: BIG, cwd: CWD, mcpServers: [] })
    const { ms, result } = await client.timed('session/fork', { sessionId: BIG, cwd: CWD, mcpServers: [] })
    const child = (result as { sessionId: string }).sessionId
    await client.call('session/close', { sessionId: child })
    await client.stop()
    await rm(join(dir, `${child}.jsonl`), { force: true })
    await rm(join(dir, `${child}.lock`), { force: true })
    return ms
  } finally {
    await client.stop()
  }
}

async function copyAndSync(path: string, to: string): Promise<number> {
  const start = process.hrtime.bigint()
  await copyFile(path, to)
  const handle = await open(to, 'r+')
  await handle.datasync()
  await handle.close()
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  await rm(to)
  return ms
}

interface MemoryFigures {
  idle: number[]
  listed: number[]
  peak: number[]
  loaded: number[]
  closed: number[]
}

/**
 * Quiet before a memory reading: V8 gives memory back to the OS when its memory reducer runs, a
 * few seconds (about 8 here) after allocation stopped.
 */
const QUIET_MS = 10_000

function quiet(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, QUIET_MS))
}

export const suite = {
  name: 'session-io',
  async run(): Promise<BenchRow[]> {
    const { dir, store, size } = bigSessionStore('dsh-bench-io-')
    writeSmallSessions(store, 1000)
    const bigPath = join(store, `${BIG}.jsonl`)
    const ours: LoadRun[] = []
    const relay: LoadRun[] = []
    const forks: number[] = []
    const copies: number[] = []
    const memory: MemoryFigures = { idle: [], listed: [], peak: [], loaded: [], closed: [] }
    const released: MemoryFigures = { idle: [], listed: [], peak: [], loaded: [], closed: [] }
    try {
      await loadOurs(store) // warm the file cache
      await loadRelay(bigPath)
      for (let run = 0; run < RUNS; run++) {
        // Timed loads are sent the moment `initialize` is answered, as an editor reopening a
        // session does; the memory runs (10 s quiet and a list before their load) are not timed.
        ours.push(await loadOurs(store))
        relay.push(await loadRelay(bigPath))
        if (run < 3) await loadOurs(store, memory)
        forks.push(await forkOurs(store))
        copies.push(await copyAndSync(bigPath, join(dir, 'copy.jsonl')))
        if (run < 3) await loadOurs(store, released, ['--expose-gc'])
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    const first = median(ours.map((r) => r.firstMs))
    const relayFirst = median(relay.map((r) => r.firstMs))
    const mb = (n: number) => `${n.toFixed(0)} MB`
    const rowIn =
      (group: string, unit: 'ms' | 'MB') =>
      (
        name: string,
        value: number,
        baselineName: string,
        baseline: number,
        target: number | undefined,
        note: string,
      ) => ({
        group,
        name,
        ours: value,
        baselineName,
        baseline,
        unit,
        better: 'lower' as const,
        ...(target !== undefined && { target }),
        note,
      })
    const io = rowIn('session io', 'ms')
    const memRow = rowIn('memory', 'MB')
    return [
      io(
        `session/load of a ${size.toFixed(0)} MB session, request to first session/update`,
        first,
        'raw relay: first notification',
        relayFirst,
        undefined,
        `target: within 15 ms (ours ${first.toFixed(0)} ms); sent the moment initialize is answered; fresh ${built} --store each run; ${ours[0]?.updates} updates (relay: ${relay[0]?.updates}, one per event)`,
      ),
      io(
        `session/load of a ${size.toFixed(0)} MB session, request to answer (whole replay)`,
        median(ours.map((r) => r.totalMs)),
        'raw relay: stream-read, parse, one notification per event, same pipe',
        median(relay.map((r) => r.totalMs)),
        0.9,
        `${RUNS} runs, interleaved; sent the moment initialize is answered`,
      ),
      io(
        `session/fork of a persisted ${size.toFixed(0)} MB session (loaded), over the wire`,
        median(forks),
        'fs.copyFile + fdatasync of the file, in process',
        median(copies),
        1.2,
        `fresh ${built} --store each run, the session loaded (untimed); the child is durable when answered`,
      ),
      memRow(
        'RSS idle (after initialize)',
        median(memory.idle),
        'itself',
        median(memory.idle),
        undefined,
        'server process VmRSS',
      ),
      memRow(
        'RSS after listing 1,000 stored sessions',
        median(memory.listed),
        'RSS idle',
        median(memory.idle),
        undefined,
        'session/list, limit 1000',
      ),
      memRow(
        `peak RSS while loading the ${size.toFixed(0)} MB session`,
        median(memory.peak),
        'file size',
        size,
        2,
        `VmHWM; idle ${mb(median(memory.idle))}`,
      ),
      memRow(
        `RSS with the ${size.toFixed(0)} MB session loaded`,
        median(memory.loaded),
        'file size',
        size,
        undefined,
        'VmRSS after the answer',
      ),
      memRow(
        `RSS after closing the ${size.toFixed(0)} MB session`,
        median(memory.closed),
        'RSS idle',
        median(memory.idle),
        undefined,
        `session/close, then ${QUIET_MS / 1000} s quiet; V8 alone decides when to collect (the default)`,
      ),
      memRow(
        `RSS after closing the ${size.toFixed(0)} MB session, memory release on (node --expose-gc)`,
        median(released.closed),
        'RSS idle, the same flag',
        median(released.idle),
        1.25,
        `session/close, then ${QUIET_MS / 1000} s quiet; the opt-in collections after a close`,
      ),
    ]
  },
}
