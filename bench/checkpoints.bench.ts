import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { createScriptProvider } from '../src/agent/providers/script.js'
import { parseModelScript } from '../src/agent/providers/script-format.js'
import { agentPlugin } from '../src/agent/service.js'
import { BlobDirectory, persistencePlugin } from '../src/persistence/index.js'
import { routeLogsToStderr } from '../src/process/logging.js'
import { sessionsPlugin } from '../src/session/index.js'
import { type BenchRow, median } from './harness.js'

/**
 * Issue 24, file checkpoints: what a tool-heavy session costs on disk and in time. A scripted
 * model runs TURNS turns on the JSONL store, each editing one line of one of FILES files of
 * FILE_BYTES (so every change keeps a distinct blob of the file before it).
 * - disk: the blob directory next to the session file itself (which already holds every edit's
 *   diff, old and new text, in its tool results);
 * - time: a turn of one edit with checkpoints, next to the same turn without (no blob store:
 *   checkpoints off); the difference is keeping the blob (write, fdatasync, rename, fsync dir);
 * - collection: collecting the store's blobs after a delete, next to reading the session files.
 */

const TURNS = 100
const FILES = 5
const FILE_BYTES = 20_000
const RUNS = 30

function fileText(index: number): string {
  const lines: string[] = []
  for (let i = 0; lines.join('\n').length < FILE_BYTES; i++)
    lines.push(`file ${index} line ${i}: ${'x'.repeat(60)}`)
  return `${lines.join('\n')}\n`
}

/** Turn `t` edits line 0 of file `t % FILES` (each file's own counter: the old text is unique). */
function script(turns: number) {
  return Array.from({ length: turns }, (_, t) => {
    const file = t % FILES
    const round = Math.floor(t / FILES)
    const oldText = round === 0 ? `file ${file} line 0:` : `file ${file} round ${round - 1}:`
    const newText = `file ${file} round ${round}:`
    return [
      [
        {
          toolCall: {
            name: 'edit_text_file',
            input: { path: `f${file}.txt`, edits: [{ oldText, newText }] },
          },
        },
      ],
      [{ text: 'ok' }],
    ]
  })
}

async function startAgent(storeDir: string, turns: number, checkpoints: boolean) {
  const ctx = new Context()
  ctx.plugin(sessionsPlugin)
  ctx.plugin(persistencePlugin, { dir: storeDir, blobGraceMs: 0 })
  const blobs = new BlobDirectory(join(storeDir, 'blobs'))
  ctx.plugin(agentPlugin, {
    provider: createScriptProvider(parseModelScript(script(turns))),
    modeOf: () => 'accept-edits',
    // Without checkpoints: a blob store that keeps nothing durable stands for "no checkpoints".
    checkpointBlobs: checkpoints ? blobs : { put: async () => 'sha256:0', get: async () => undefined },
  })
  await ctx.start()
  return ctx
}

function project(base: string): string {
  const cwd = join(base, 'project')
  mkdirSync(cwd, { recursive: true })
  for (let i = 0; i < FILES; i++) writeFileSync(join(cwd, `f${i}.txt`), fileText(i))
  return cwd
}

const noClient = { prompt: [], sendUpdate: () => {}, client: {} }

async function runTurns(
  base: string,
  turns: number,
  checkpoints: boolean,
): Promise<{ times: number[]; id: string }> {
  const cwd = project(base)
  const ctx = await startAgent(join(base, 'store'), turns, checkpoints)
  const session = await ctx.sessions.createDurable(undefined, { meta: { cwd } })
  const times: number[] = []
  for (let t = 0; t < turns; t++) {
    const start = process.hrtime.bigint()
    await ctx.agent.runTurn(session, {
      ...noClient,
      prompt: [{ type: 'text', text: `turn ${t}` }],
      signal: new AbortController().signal,
    })
    times.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  await ctx.sessions.closeAll()
  await ctx.stop()
  return { times, id: session.id }
}

function sizeOf(dir: string): { bytes: number; blocks: number; count: number } {
  let bytes = 0
  let blocks = 0
  let count = 0
  for (const name of readdirSync(dir)) {
    const info = statSync(join(dir, name))
    bytes += info.size
    blocks += info.blocks * 512
    count++
  }
  return { bytes, blocks, count }
}

export const suite = {
  name: 'checkpoints',
  async run(): Promise<BenchRow[]> {
    routeLogsToStderr()
    const base = mkdtempSync(join(tmpdir(), 'dsh-bench-ckpt-'))
    try {
      const heavy = join(base, 'heavy')
      const { id, times: withCheckpoints } = await runTurns(heavy, TURNS, true)
      const store = join(heavy, 'store')
      const blobs = sizeOf(join(store, 'blobs'))
      const log = statSync(join(store, `${id}.jsonl`)).size
      const plain = join(base, 'plain')
      const { times: without } = await runTurns(plain, TURNS, false)

      // Collection over the heavy store: every blob still named, so all are scanned and kept.
      const collector = new BlobDirectory(join(store, 'blobs'))
      const files = readdirSync(store)
        .filter((n) => n.endsWith('.jsonl'))
        .map((n) => join(store, n))
      const collect: number[] = []
      const read: number[] = []
      for (let i = 0; i < RUNS; i++) {
        let start = process.hrtime.bigint()
        await collector.collect(async () => files, 0)
        collect.push(Number(process.hrtime.bigint() - start) / 1e6)
        start = process.hrtime.bigint()
        for (const file of files) readFileSync(file)
        read.push(Number(process.hrtime.bigint() - start) / 1e6)
      }
      const mb = (n: number) => n / 1e6
      return [
        {
          group: 'checkpoints',
          name: `blob directory of a ${TURNS}-edit session (${blobs.count} blobs of ~${FILE_BYTES / 1000} KB, ${mb(blobs.blocks).toFixed(2)} MB on disk)`,
          ours: mb(blobs.bytes),
          baselineName: 'its session file',
          baseline: mb(log),
          unit: 'MB',
          better: 'lower',
          note: 'the log already holds each edit as a diff (old and new text)',
        },
        {
          group: 'checkpoints',
          name: 'turn with one 20 KB edit, checkpointed (blob kept durably)',
          ours: median(withCheckpoints),
          baselineName: 'same turn, no blob kept',
          baseline: median(without),
          unit: 'ms',
          better: 'lower',
        },
        {
          group: 'checkpoints',
          name: `collect blobs: scan ${mb(log).toFixed(1)} MB of sessions, ${blobs.count} blobs`,
          ours: median(collect),
          baselineName: 'readFileSync of the session files',
          baseline: median(read),
          unit: 'ms',
          better: 'lower',
        },
      ]
    } finally {
      rmSync(base, { recursive: true, force: true })
    }
  },
}
