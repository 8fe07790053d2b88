import { createReadStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { appendFile, copyFile, open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { routeLogsToStderr } from '../src/process/logging.js'
import { type BenchRow, median } from './harness.js'
import { listRows, midListRow } from './persistence-list.js'
import { header, startStore, timeEach } from './persistence-store.js'

const TURNS = 300
const EVENTS_PER_TURN = 10

const note = (text: string) => ({ type: 'context/note' as const, data: { text } })

/** A ~50 MB session file like the notes' measurement: 1.8 KB notes, one 200 KB note every 500. */
function writeBigSession(dir: string, id: string): number {
  const chunks: string[] = [header(id, '2024-01-01T00:00:00.000Z')]
  let size = 0
  for (let seq = 1; size < 50e6; seq++) {
    const text = `${seq}:`.padEnd(seq % 500 === 0 ? 200_000 : 1800, 'abcdefghij')
    const line = `${JSON.stringify({ seq, type: 'context/note', time: '2024-01-01T00:00:01.000Z', data: { text } })}\n`
    chunks.push(line)
    size += line.length
  }
  const path = join(dir, `${id}.jsonl`)
  writeFileSync(path, chunks.join(''), { mode: 0o600 })
  return statSync(path).size
}

/** Durable appends under the policy (fdatasync once per turn) vs raw appendFile of the same lines. */
async function appendRows(dir: string): Promise<BenchRow[]> {
  const store = await startStore(join(dir, 'append'))
  const text = 'x'.repeat(300)
  const oursRates: number[] = []
  const baseRates: number[] = []
  for (let run = 0; run < 5; run++) {
    const session = store.sessions.create(`append_${run}`)
    await store.sessions.flush(session.id)
    let start = performance.now()
    for (let turn = 0; turn < TURNS; turn++) {
      for (let i = 0; i < EVENTS_PER_TURN; i++) session.append(note(text))
      await store.sessions.flush(session.id)
    }
    oursRates.push((TURNS * EVENTS_PER_TURN) / ((performance.now() - start) / 1000))
    const lines = session.events().map((e) => `${JSON.stringify(e)}\n`)
    const raw = join(dir, `raw_${run}.jsonl`)
    start = performance.now()
    for (const line of lines) await appendFile(raw, line)
    baseRates.push(lines.length / ((performance.now() - start) / 1000))
  }
  await store.stop()
  return [
    {
      group: 'persistence',
      name: `durable append, ${EVENTS_PER_TURN} events/turn + flush (fdatasync) per turn`,
      ours: median(oursRates),
      baselineName: 'appendFile per event, no fsync',
      baseline: median(baseRates),
      unit: 'ops/s',
      better: 'higher',
      note: '~370 B events; ops = events',
    },
  ]
}

/** Streaming JSON.parse of a file: 1 MiB reads, split on \n bytes, parse each line, keep the values. */
async function streamParse(path: string): Promise<unknown[]> {
  const values: unknown[] = []
  let carry: Buffer[] = []
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    let from = 0
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, from)) {
      const piece = chunk.subarray(from, nl)
      const line = carry.length > 0 ? Buffer.concat([...carry, piece]) : piece
      carry = []
      values.push(JSON.parse(line.toString('utf8')))
      from = nl + 1
    }
    if (from < chunk.length) carry.push(chunk.subarray(from))
  }
  return values
}

async function bigSessionRows(dir: string): Promise<BenchRow[]> {
  const storeDir = join(dir, 'big')
  mkdirSync(storeDir, { recursive: true, mode: 0o700 })
  const bytes = writeBigSession(storeDir, 'big')
  const path = join(storeDir, 'big.jsonl')
  const store = await startStore(storeDir)
  const release = async () => {
    if (store.sessions.get('big')) await store.sessions.close('big')
    await store.persistence.idle()
  }
  const load = await timeEach(5, () => store.sessions.load('big'), release)
  await release()
  const parse = await timeEach(5, () => streamParse(path))

  const parent = await store.sessions.load('big')
  let forks = 0
  const fork = await timeEach(
    5,
    () => store.sessions.forkDurable(parent, undefined, `big_fork_${++forks}`),
    async () => {
      if (forks > 0) await store.sessions.delete(`big_fork_${forks}`)
    },
  )
  const copy = join(storeDir, 'copy.bin')
  const removeCopy = () => rm(copy, { force: true })
  const copyTime = await timeEach(5, () => copyFile(path, copy), removeCopy)
  const copySyncTime = await timeEach(
    5,
    async () => {
      await copyFile(path, copy)
      const handle = await open(copy, 'r+')
      await handle.datasync()
      await handle.close()
    },
    removeCopy,
  )
  await store.stop()
  const mb = (bytes / 1e6).toFixed(0)
  return [
    {
      group: 'persistence',
      name: `fork of a persisted ${mb} MB session (byte-range copy + fdatasync + rename)`,
      ours: fork,
      baselineName: 'fs.copyFile of the same bytes',
      baseline: copyTime,
      unit: 'ms',
      better: 'lower',
      target: 3,
      note: `copyFile + fdatasync: ${copySyncTime.toFixed(1)} ms (${(fork / copySyncTime).toFixed(2)}x)`,
    },
    {
      group: 'persistence',
      name: `load of a ${mb} MB session (ctx.sessions.load: read, check, freeze)`,
      ours: load,
      baselineName: 'streaming JSON.parse per line, values kept',
      baseline: parse,
      unit: 'ms',
      better: 'lower',
      target: 1.5,
      note: 'ours also checks every event against the log invariants and freezes it',
    },
  ]
}

export const suite = {
  name: 'persistence',
  async run(): Promise<BenchRow[]> {
    routeLogsToStderr(1)
    const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-persist-'))
    try {
      return [
        ...(await appendRows(dir)),
        ...(await bigSessionRows(dir)),
        ...(await listRows(dir)),
        ...(await midListRow(dir)),
      ]
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
}
