import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { type BenchRow, median } from './harness.js'
import { NdjsonBenchClient, opsPerSecond, rawEchoScript } from './ndjson-client.js'

/**
 * The layers under the real server, each in a child process over OS pipes, answering `ping` with
 * "pong": the wire layer (NDJSON reader, inbound dispatcher, writer) with one handler, and the ACP
 * dispatch layer
 * (`AcpConnection`: method table, cancellation, error mapping) with a one-method table and no
 * services. Both next to a minimal raw NDJSON server (the limit), same client, same run. The gap
 * between these rows and the `protocol` rows is what the methods and services cost.
 */

const here = dirname(fileURLToPath(import.meta.url))
const moduleUrl = (path: string) => pathToFileURL(join(here, '..', 'src', path)).href

const wireScript = `
const { createNdjsonConnection } = await import(${JSON.stringify(moduleUrl('jsonrpc/index.js'))})
const inbound = { request: () => 'pong', notification: () => {} }
createNdjsonConnection(process.stdin, process.stdout, { inbound })
`

const dispatchScript = `
const { AcpConnection } = await import(${JSON.stringify(moduleUrl('acp/connection/connection.js'))})
const quiet = { debug() {}, info() {}, warn() {}, error() {} }
const ctx = { logger: () => quiet }
const ping = { name: 'ping', beforeInitialize: true, handle: () => 'pong' }
const server = { method: (name) => (name === 'ping' ? ping : undefined), capabilities: () => ({}), services: {} }
new AcpConnection(ctx, server, { input: process.stdin, output: process.stdout })
`

const rawScript = rawEchoScript('pong')

const SEQUENTIAL = 4000
const PIPELINED = 40000
const IN_FLIGHT = 64
const RUNS = 5

const servers = [
  { name: 'wire layer (reader, dispatcher, writer)', script: wireScript },
  { name: 'AcpConnection dispatch, no services', script: dispatchScript },
  { name: 'raw NDJSON echo server', script: rawScript },
] as const

/** Medians of `RUNS` runs per server, the servers' runs interleaved so drift hits all alike. */
async function measure(total: number, window: number): Promise<number[]> {
  const clients: NdjsonBenchClient[] = []
  try {
    for (const server of servers) {
      const client = NdjsonBenchClient.spawn(process.execPath, ['--input-type=module', '-e', server.script])
      await client.roundTrips(500, 8, 'ping', {}) // warm up, and proves the server answers
      clients.push(client)
    }
    const runs = servers.map((): number[] => [])
    for (let run = 0; run < RUNS; run++) {
      for (const [i, client] of clients.entries()) {
        runs[i]?.push(await opsPerSecond(total, () => client.roundTrips(total, window, 'ping', {})))
      }
    }
    return runs.map(median)
  } finally {
    await Promise.all(clients.map((client) => client.stop()))
  }
}

export const suite = {
  name: 'wire',
  async run(): Promise<BenchRow[]> {
    const rows: BenchRow[] = []
    for (const [total, window] of [
      [SEQUENTIAL, 1],
      [PIPELINED, IN_FLIGHT],
    ] as const) {
      const [wire, dispatch, raw] = (await measure(total, window)) as [number, number, number]
      for (const [i, ours] of [wire, dispatch].entries()) {
        rows.push({
          group: 'wire',
          name: `ping round trips, ${window} in flight: ${servers[i]?.name}`,
          ours,
          baselineName: servers[2].name,
          baseline: raw,
          unit: 'ops/s',
          better: 'higher',
          target: 0.7,
          note: `child process over pipes; ${total} per run, ${RUNS} runs`,
        })
      }
    }
    return rows
  },
}
