import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRunCommandTool } from '../src/agent/tools/command/run-command.js'
import { CommandSandbox } from '../src/agent/tools/command/sandbox.js'
import type { Tool } from '../src/agent/tools/tool.js'
import { type BenchRow, median } from './harness.js'

/**
 * The time the bubblewrap sandbox adds to a local `run_command` (issue 28): `echo hi` through the
 * tool in the sandbox (a hidden store beside it), next to the same tool with `--sandbox off`, in
 * the same run, interleaved. Target: it adds under 20 ms.
 */

const RUNS = 41
const TARGET_MS = 20

async function timeOnce(tool: Tool, cwd: string): Promise<number> {
  const start = process.hrtime.bigint()
  const result = await tool.run(
    { command: 'echo hi' },
    {
      sessionId: 'ses_bench',
      cwd,
      callId: 'c1',
      turn: 1,
      client: {},
      signal: new AbortController().signal,
      progress: () => {},
    },
  )
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (result.isError || !String(result.output).startsWith('exit code 0\nhi\n'))
    throw new Error(`echo hi failed: ${result.output}`)
  return ms
}

export const suite = {
  name: 'sandbox',
  async run(): Promise<BenchRow[]> {
    const base = mkdtempSync(join(tmpdir(), 'dsh-bench-sandbox-'))
    try {
      const cwd = join(base, 'project')
      const store = join(base, 'store')
      mkdirSync(cwd)
      mkdirSync(store)
      const sandbox = new CommandSandbox({ mode: 'auto', hidden: [store] })
      const state = await sandbox.probe()
      if (!state.sandboxed) {
        process.stderr.write(`bench: sandbox row skipped: ${state.reason}\n`)
        return []
      }
      const confined = createRunCommandTool(sandbox)
      const plain = createRunCommandTool(new CommandSandbox({ mode: 'off' }))
      await timeOnce(confined, cwd)
      await timeOnce(plain, cwd)
      const ours: number[] = []
      const baseline: number[] = []
      for (let i = 0; i < RUNS; i++) {
        ours.push(await timeOnce(confined, cwd))
        baseline.push(await timeOnce(plain, cwd))
      }
      const added = median(ours) - median(baseline)
      return [
        {
          group: 'sandbox',
          name: 'run_command `echo hi`, in bubblewrap',
          ours: median(ours),
          baselineName: 'the same, --sandbox off',
          baseline: median(baseline),
          unit: 'ms',
          better: 'lower',
          note: `adds ${added.toFixed(1)} ms: ${added < TARGET_MS ? 'meets' : 'MISSES'} < ${TARGET_MS} ms`,
        },
      ]
    } finally {
      rmSync(base, { recursive: true, force: true })
    }
  },
}
