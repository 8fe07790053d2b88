import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BenchRow, median } from './harness.js'
import { StdioBenchClient } from './stdio-client.js'

/**
 * `session/new` with one stdio MCP server that never answers `initialize` (it reads stdin and says
 * nothing, as an `npx -y` server still downloading) against `session/new` without servers, in the
 * same server process. Servers connect in the background, so the answer does not wait for it.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const cli = process.env.DSH_BENCH_CLI ?? join(root, 'dist', 'cli.cjs')
const INITIALIZE = { protocolVersion: 1, clientCapabilities: {} }
const SILENT = { name: 'silent', command: process.execPath, args: ['-e', 'process.stdin.resume()'], env: [] }
const RUNS = 9

async function run(): Promise<BenchRow[]> {
  const cwd = mkdtempSync(join(tmpdir(), 'dsh-bench-mcp-'))
  const client = StdioBenchClient.spawn([cli, '--memory', '--mcp-timeout-ms', '600000'])
  const without: number[] = []
  const withSilent: number[] = []
  try {
    await client.call('initialize', INITIALIZE)
    await client.call('session/new', { cwd, mcpServers: [] })
    for (let i = 0; i < RUNS; i++) {
      without.push((await client.timed('session/new', { cwd, mcpServers: [] })).ms)
      withSilent.push((await client.timed('session/new', { cwd, mcpServers: [SILENT] })).ms)
    }
  } finally {
    await client.stop()
    rmSync(cwd, { recursive: true, force: true })
  }
  return [
    {
      group: 'mcp',
      name: 'session/new, one MCP server that never answers',
      ours: median(withSilent),
      baselineName: 'session/new without servers',
      baseline: median(without),
      unit: 'ms',
      better: 'lower',
      note: 'servers connect in the background; before: the answer waited for --mcp-timeout-ms',
    },
  ]
}

export const suite = { name: 'mcp', run }
