import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { type BenchRow, median } from './harness.js'

const run = promisify(execFile)
const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'load-memory-child.js')
const TARGET_BYTES = 200e6
const RUNS = 3

/**
 * A ~200 MB session shaped like real use: turns of a prompt, a step with a streamed answer, a tool
 * call and its (larger) result, then a final answer; every few turns a pasted file.
 */
function writeSession(dir: string, id: string): number {
  const path = join(dir, `${id}.jsonl`)
  const time = '2024-01-01T00:00:01.000Z'
  const chunks: string[] = [
    `${JSON.stringify({ version: 1, id, createdAt: '2024-01-01T00:00:00.000Z', cwd: '/bench' })}\n`,
  ]
  let size = 0
  let seq = 0
  const add = (type: string, data: unknown) => {
    const line = `${JSON.stringify({ seq: ++seq, type, time, data })}\n`
    chunks.push(line)
    size += line.length
  }
  for (let turn = 1; size < TARGET_BYTES; turn++) {
    const pasted = turn % 20 === 0 ? 'x'.repeat(50_000) : ''
    add('turn/start', { turn })
    add('user/message', { turn, content: [{ type: 'text', text: `Question ${turn}: why? ${pasted}` }] })
    add('step/start', { turn, step: 1 })
    add('assistant/message', {
      turn,
      step: 1,
      content: 'Let me look.'.repeat(20),
      usage: { inputTokens: 900, outputTokens: 40 },
    })
    add('tool/call', {
      turn,
      step: 1,
      callId: `c${turn}`,
      name: 'read_text_file',
      input: { path: `src/f${turn}.ts` },
      title: 'Read',
      kind: 'read',
    })
    add('tool/result', { turn, step: 1, callId: `c${turn}`, output: 'const x = 1\n'.repeat(200) })
    add('step/end', { turn, step: 1 })
    add('step/start', { turn, step: 2 })
    add('assistant/message', { turn, step: 2, content: 'Because of this line. '.repeat(30) })
    add('step/end', { turn, step: 2 })
    add('turn/end', { turn, reason: 'completed' })
  }
  writeFileSync(path, chunks.join(''), { mode: 0o600 })
  return statSync(path).size
}

async function measure(
  mode: 'ours' | 'parse',
  dir: string,
  id: string,
): Promise<{ peakMB: number; afterMB: number }> {
  const peaks: number[] = []
  const afters: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const { stdout } = await run(process.execPath, ['--expose-gc', CHILD, mode, dir, id], {
      maxBuffer: 1 << 20,
    })
    const result = JSON.parse(stdout.trim().split('\n').at(-1) as string) as {
      peakMB: number
      afterMB: number
    }
    peaks.push(result.peakMB)
    afters.push(result.afterMB)
  }
  return { peakMB: median(peaks), afterMB: median(afters) }
}

/**
 * Memory of loading a big session, each measurement in a fresh process: peak RSS of
 * `ctx.sessions.load` next to a streaming `JSON.parse` that keeps every value, and what stays
 * resident once the session is closed.
 */
export const suite = {
  name: 'memory',
  async run(): Promise<BenchRow[]> {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-memory-'))
    try {
      const fileMB = Math.round(writeSession(dir, 'big') / 1e6)
      const ours = await measure('ours', dir, 'big')
      const parse = await measure('parse', dir, 'big')
      return [
        {
          group: 'memory',
          name: `peak RSS loading a ${fileMB} MB session of tool-using turns (fresh process)`,
          ours: ours.peakMB,
          baselineName: 'streaming JSON.parse per line, values kept',
          baseline: parse.peakMB,
          unit: 'MB',
          better: 'lower',
          note: `${(ours.peakMB / fileMB).toFixed(1)}x the file (goal: toward 2x); parse alone ${(parse.peakMB / fileMB).toFixed(1)}x`,
        },
        {
          group: 'memory',
          name: `RSS after that session is closed and collected`,
          ours: ours.afterMB,
          baselineName: 'parse, values dropped and collected',
          baseline: parse.afterMB,
          unit: 'MB',
          better: 'lower',
        },
      ]
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
}
