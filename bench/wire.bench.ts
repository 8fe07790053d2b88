import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { once } from 'node:events'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import {
  AbstractMessageReader,
  AbstractMessageWriter,
  createMessageConnection,
  type DataCallback,
  Disposable,
} from 'vscode-jsonrpc/node'
import { type BenchRow, median } from './harness.js'

/**
 * Round trips per second of a cheap request (`ping` → "pong") over real OS pipes to a child
 * process: our wire layer + vscode-jsonrpc, next to a minimal raw NDJSON echo server (the limit)
 * driven by the same client. One at a time, and 64 in flight.
 */

const here = dirname(fileURLToPath(import.meta.url))
const wireModule = pathToFileURL(join(here, '..', 'src', 'protocol', 'wire', 'index.js')).href

/** Our server: the wire layer under vscode-jsonrpc, one handler. */
const oursScript = `
const { createNdjsonConnection } = await import(${JSON.stringify(wireModule)})
const { connection } = createNdjsonConnection(process.stdin, process.stdout)
connection.onRequest('ping', () => 'pong')
connection.listen()
`

/** The limit: split on \\n, parse, answer; one write per input chunk. */
const rawScript = `
let rest = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (text) => {
  const lines = (rest + text).split('\\n')
  rest = lines.pop()
  let out = ''
  for (const line of lines) {
    if (line.length === 0) continue
    const msg = JSON.parse(line)
    out += JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: 'pong' }) + '\\n'
  }
  if (out) process.stdout.write(out)
})
`

const SEQUENTIAL = 4000
const PIPELINED = 40000
const IN_FLIGHT = 64
const RUNS = 5

/** A minimal NDJSON client over a child's stdio, counting answers. */
class PingClient {
  private rest = ''
  private waiting: (() => void) | undefined
  private answered = 0
  private nextId = 1

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (text: string) => {
      const lines = (this.rest + text).split('\n')
      this.rest = lines.pop() ?? ''
      for (const line of lines) {
        const msg = JSON.parse(line) as { result?: unknown }
        if (msg.result !== 'pong') throw new Error(`unexpected answer: ${line}`)
        this.answered++
      }
      this.waiting?.()
    })
  }

  static async start(script: string): Promise<PingClient> {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'pipe' })
    child.stderr.pipe(process.stderr)
    const client = new PingClient(child)
    await client.roundTrips(200, 8) // warm up, and proves the server answers
    return client
  }

  /** Sends `total` pings keeping at most `window` unanswered; resolves when all are answered. */
  async roundTrips(total: number, window: number): Promise<void> {
    const base = this.answered
    let sent = 0
    while (this.answered - base < total) {
      const inFlight = sent - (this.answered - base)
      const room = Math.min(window - inFlight, total - sent)
      if (room > 0) {
        let batch = ''
        for (let i = 0; i < room; i++) batch += `{"jsonrpc":"2.0","id":${this.nextId++},"method":"ping"}\n`
        this.child.stdin.write(batch)
        sent += room
      }
      await new Promise<void>((resolve) => {
        this.waiting = resolve
      })
    }
    this.waiting = undefined
  }

  async stop(): Promise<void> {
    this.child.stdin.end()
    if (this.child.exitCode === null) await once(this.child, 'exit')
  }
}

async function opsPerSecond(client: PingClient, total: number, window: number): Promise<number> {
  const start = process.hrtime.bigint()
  await client.roundTrips(total, window)
  return total / (Number(process.hrtime.bigint() - start) / 1e9)
}

/** Alternates ours and raw runs so drift on the machine hits both alike. */
async function measure(total: number, window: number): Promise<{ ours: number; raw: number }> {
  const ours = await PingClient.start(oursScript)
  const raw = await PingClient.start(rawScript)
  const oursRuns: number[] = []
  const rawRuns: number[] = []
  try {
    for (let run = 0; run < RUNS; run++) {
      oursRuns.push(await opsPerSecond(ours, total, window))
      rawRuns.push(await opsPerSecond(raw, total, window))
    }
  } finally {
    await Promise.all([ours.stop(), raw.stop()])
  }
  return { ours: median(oursRuns), raw: median(rawRuns) }
}

/**
 * The engine's own ceiling: vscode-jsonrpc in this process with a reader that hands it parsed
 * messages and a writer that drops them (no framing, no I/O), `window` in flight.
 */
async function engineOnly(total: number, window: number): Promise<number> {
  let deliver: DataCallback = () => {}
  let answered = 0
  let wake = () => {}
  class DirectReader extends AbstractMessageReader {
    listen(callback: DataCallback): Disposable {
      deliver = callback
      return Disposable.create(() => {})
    }
  }
  class DroppingWriter extends AbstractMessageWriter {
    write(): Promise<void> {
      answered++
      wake()
      return Promise.resolve()
    }
    end(): void {}
  }
  const connection = createMessageConnection(new DirectReader(), new DroppingWriter())
  connection.onRequest('ping', () => 'pong')
  connection.listen()
  const runs: number[] = []
  let id = 0
  for (let run = 0; run <= RUNS; run++) {
    const start = process.hrtime.bigint()
    const target = answered + total
    while (answered < target) {
      const batch = Math.min(window, target - answered)
      const until = answered + batch
      for (let i = 0; i < batch; i++) deliver({ jsonrpc: '2.0', id: id++, method: 'ping' } as never)
      while (answered < until) await new Promise<void>((resolve) => (wake = resolve))
    }
    if (run > 0) runs.push(total / (Number(process.hrtime.bigint() - start) / 1e9)) // run 0 warms up
  }
  connection.dispose()
  return median(runs)
}

export const suite = {
  name: 'wire',
  async run(): Promise<BenchRow[]> {
    const sequential = await measure(SEQUENTIAL, 1)
    const pipelined = await measure(PIPELINED, IN_FLIGHT)
    const row = (name: string, m: { ours: number; raw: number }, note: string): BenchRow => ({
      group: 'wire',
      name,
      ours: m.ours,
      baselineName: 'raw NDJSON echo server',
      baseline: m.raw,
      unit: 'ops/s',
      better: 'higher',
      target: 0.7,
      note,
    })
    const engine = await engineOnly(PIPELINED, IN_FLIGHT)
    return [
      row('ping round trips, 1 in flight', sequential, `child process over pipes; ${SEQUENTIAL} per run`),
      row(
        `ping round trips, ${IN_FLIGHT} in flight`,
        pipelined,
        `child process over pipes; ${PIPELINED} per run`,
      ),
      {
        group: 'wire',
        name: `ping round trips, ${IN_FLIGHT} in flight`,
        ours: pipelined.ours,
        baselineName: 'vscode-jsonrpc alone, in-process, no I/O',
        baseline: engine,
        unit: 'ops/s',
        better: 'higher',
        note: 'the engine ceiling: it dispatches one message per event-loop turn',
      },
    ]
  },
}
