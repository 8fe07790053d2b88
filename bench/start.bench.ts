import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BenchRow, median } from './harness.js'

/**
 * Start (issue 35 item 11): ms from spawn to the `initialize` answer of the built server, in a
 * project with an AGENTS.md, without and with a user configuration file (one provider, a default
 * model and mode), next to spawning `node -e 0` to its exit, all in the same run, interleaved one
 * spawn at a time. The ratio is the median of each round's own ratio, so drift of a shared machine
 * hits both sides alike. Needs `npm run build` first; `DSH_BENCH_CLI` names another cli.cjs.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const cli = process.env.DSH_BENCH_CLI ?? join(root, 'dist', 'cli.cjs')
const ROUNDS = 15
const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: 1, clientCapabilities: {} },
})}\n`
const CONFIG = {
  providers: {
    ollama: {
      baseUrl: 'http://127.0.0.1:11434/v1',
      keyRequired: false,
      models: [{ name: 'qwen2.5-coder', contextWindow: 32768, imageInput: false }],
    },
  },
  defaultModel: 'ollama/qwen2.5-coder',
  defaultMode: 'ask',
}

interface Places {
  readonly project: string
  readonly emptyHome: string
  readonly configHome: string
}

function places(dir: string): Places {
  const project = join(dir, 'project')
  const emptyHome = join(dir, 'empty-config')
  const configHome = join(dir, 'config')
  for (const path of [project, emptyHome, join(configHome, 'dsh-acp')]) mkdirSync(path, { recursive: true })
  writeFileSync(join(project, 'AGENTS.md'), '# Agents\n\nRun `npm test` before committing.\n')
  writeFileSync(join(configHome, 'dsh-acp', 'config.json'), `${JSON.stringify(CONFIG, null, 2)}\n`)
  return { project, emptyHome, configHome }
}

/** ms from spawn to the first line on stdout (the answer); the child is then stopped, untimed. */
async function spawnToInitialize(cwd: string, configHome: string): Promise<number> {
  const start = process.hrtime.bigint()
  const env = { ...process.env, XDG_CONFIG_HOME: configHome }
  const child = spawn(process.execPath, [cli, '--memory'], { cwd, env, stdio: ['pipe', 'pipe', 'inherit'] })
  child.stdin.write(INITIALIZE)
  let text = ''
  child.stdout.setEncoding('utf8')
  for await (const chunk of child.stdout) {
    text += chunk
    if (text.includes('\n')) break
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (!text.includes('"result"')) throw new Error(`no initialize answer: ${text}`)
  child.kill()
  if (child.exitCode === null) await once(child, 'exit')
  return ms
}

async function spawnNothing(): Promise<number> {
  const start = process.hrtime.bigint()
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' })
  await once(child, 'exit')
  return Number(process.hrtime.bigint() - start) / 1e6
}

function row(name: string, times: readonly number[], node: readonly number[]): BenchRow {
  const ratios = times.map((ms, i) => ms / (node[i] ?? Number.NaN))
  return {
    group: 'start',
    name,
    ours: median(times),
    baselineName: 'node -e 0 (spawn to exit)',
    baseline: median(node),
    unit: 'ms',
    better: 'lower',
    target: 1.2,
    note: `${ROUNDS} rounds, interleaved; median of the rounds' ratios ${median(ratios).toFixed(2)}x`,
  }
}

export const suite = {
  name: 'start',
  async run(): Promise<BenchRow[]> {
    if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`)
    const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-start-'))
    try {
      const at = places(dir)
      const node: number[] = []
      const bare: number[] = []
      const configured: number[] = []
      for (let round = 0; round <= ROUNDS; round++) {
        const times = [
          await spawnNothing(),
          await spawnToInitialize(at.project, at.emptyHome),
          await spawnToInitialize(at.project, at.configHome),
        ]
        if (round === 0) continue // round 0 warms the file cache
        node.push(times[0] ?? Number.NaN)
        bare.push(times[1] ?? Number.NaN)
        configured.push(times[2] ?? Number.NaN)
      }
      return [
        row('spawn to initialize answer, AGENTS.md, no config file', bare, node),
        row('spawn to initialize answer, AGENTS.md and a config file', configured, node),
      ]
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
}
