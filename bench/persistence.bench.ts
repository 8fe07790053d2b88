import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { appendFile, copyFile, open, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { JsonlPersistence, persistencePlugin } from '../src/persistence/index.js'
import { routeLogsToStderr } from '../src/process/logging.js'
import { type SessionStore, sessionsPlugin } from '../src/session/index.js'
import { type BenchRow, collectGarbage, median } from './harness.js'

const TURNS = 300
const EVENTS_PER_TURN = 10
const LIST_SESSIONS = 10_000
/** Sessions of the cold-list row whose files are larger than the catalog's first read. */
const MID_SESSIONS = 1_000
const MID_SESSION_BYTES = 64 * 1024

interface Store {
  readonly sessions: SessionStore
  readonly persistence: JsonlPersistence
  stop(): Promise<void>
}

async function startStore(dir: string): Promise<Store> {
  const ctx = new Context()
  ctx.plugin(sessionsPlugin, { defaultCwd: '/bench' })
  ctx.plugin(persistencePlugin, { dir })
  await ctx.start()
  const persistence = ctx.get('persistence') as JsonlPersistence
  return {
    sessions: ctx.sessions,
    persistence,
    async stop() {
      await ctx.sessions.closeAll()
      await persistence.idle()
      await ctx.stop()
    },
  }
}

const note = (text: string) => ({ type: 'context/note' as const, data: { text } })

function header(id: string, createdAt: string): string {
  return `${JSON.stringify({ version: 1, id, createdAt, cwd: '/bench' })}\n`
}

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

/** Median ms of `fn` over `runs` runs (after one warm-up); `setup` and a GC run untimed before each. */
async function timeEach(
  runs: number,
  fn: () => Promise<unknown>,
  setup: () => Promise<unknown> = async () => {},
) {
  const times: number[] = []
  for (let run = 0; run <= runs; run++) {
    await setup()
    collectGarbage()
    const start = performance.now()
    await fn()
    if (run > 0) times.push(performance.now() - start)
  }
  return median(times)
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

/** First line of every file, 16 at a time: the floor for listing from headers. */
async function readFirstLines(dir: string): Promise<number> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.jsonl'))
  let next = 0
  let count = 0
  const buffer = () => Buffer.allocUnsafe(4096)
  const worker = async () => {
    const bytes = buffer()
    while (next < names.length) {
      const handle = await open(join(dir, names[next++] as string), 'r')
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, 0)
      await handle.close()
      JSON.parse(bytes.toString('utf8', 0, bytes.subarray(0, bytesRead).indexOf(10)))
      count++
    }
  }
  await Promise.all(Array.from({ length: 16 }, worker))
  return count
}

/**
 * Median time of a first page listed by a new backend over `storeDir`, five runs: with no catalog
 * (nothing cached: every file is read), or with the catalog the backend before it saved when it
 * stopped (every file is stat'ed; none changed, so none is read). Each run's backend is stopped,
 * and its catalog saved, before the next one starts.
 */
async function coldListTime(storeDir: string, withCatalog: boolean): Promise<number> {
  let ctx: Context | undefined
  let persistence: JsonlPersistence | undefined
  const stopPrevious = async () => {
    await ctx?.stop()
    await persistence?.idle()
  }
  const start = async () => {
    ctx = new Context()
    ctx.plugin(sessionsPlugin, { defaultCwd: '/bench' })
    await ctx.start()
    persistence = new JsonlPersistence(ctx, { dir: storeDir })
  }
  const catalog = join(storeDir, '.catalog.json')
  if (withCatalog) {
    await start()
    await (persistence as JsonlPersistence).list({ limit: 50 })
  }
  const times = await timeEach(
    5,
    () => (persistence as JsonlPersistence).list({ limit: 50 }),
    async () => {
      await stopPrevious()
      if (!withCatalog) rmSync(catalog, { force: true })
      else if (!existsSync(catalog)) throw new Error('the backend before saved no catalog')
      await start()
    },
  )
  await stopPrevious()
  rmSync(catalog, { force: true })
  return times
}

async function listRows(dir: string): Promise<BenchRow[]> {
  const storeDir = join(dir, 'list')
  mkdirSync(storeDir, { recursive: true, mode: 0o700 })
  for (let i = 0; i < LIST_SESSIONS; i++) {
    const id = `ses_${String(i).padStart(6, '0')}`
    const createdAt = new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString()
    const events = [1, 2, 3].map(
      (seq) =>
        `${JSON.stringify({ seq, type: 'context/note', time: createdAt, data: { text: `note ${seq}` } })}\n`,
    )
    writeFileSync(join(storeDir, `${id}.jsonl`), header(id, createdAt) + events.join(''), { mode: 0o600 })
  }
  const cold = await coldListTime(storeDir, false)
  const coldCatalog = await coldListTime(storeDir, true)
  const store = await startStore(storeDir)
  const warm = await timeEach(5, () => store.sessions.list({ limit: 50 }))
  const baseline = await timeEach(5, () => readFirstLines(storeDir))
  await store.stop()
  const row = (name: string, ours: number, note: string): BenchRow => ({
    group: 'persistence',
    name,
    ours,
    baselineName: `first line of ${LIST_SESSIONS} files`,
    baseline,
    unit: 'ms',
    better: 'lower',
    target: 2,
    note,
  })
  return [
    row(
      `list of ${LIST_SESSIONS} sessions, cold (new backend, no saved catalog)`,
      cold,
      'per file: open (+ fstat), one read, close; a file over 16 KiB: its tail too',
    ),
    row(
      `list of ${LIST_SESSIONS} sessions, cold (new backend, the catalog the last one saved)`,
      coldCatalog,
      'reads the catalog, then one stat per file; no file changed, so none is read',
    ),
    row(`list of ${LIST_SESSIONS} sessions, warm`, warm, 'stat per file, cache by (ino, size, mtime)'),
  ]
}

/** Every file read whole, 16 at a time: the floor for finding a title event anywhere in a file. */
async function readWholeFiles(dir: string): Promise<number> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.jsonl'))
  let next = 0
  let bytes = 0
  const worker = async () => {
    while (next < names.length) bytes += (await readFile(join(dir, names[next++] as string))).length
  }
  await Promise.all(Array.from({ length: 16 }, worker))
  return bytes
}

/**
 * A cold list of sessions larger than the catalog's first read and without a title event: the
 * title search (the last own `session/title`, from the end) has to look at every byte of each.
 */
async function midListRow(dir: string): Promise<BenchRow[]> {
  const storeDir = join(dir, 'list-mid')
  mkdirSync(storeDir, { recursive: true, mode: 0o700 })
  for (let i = 0; i < MID_SESSIONS; i++) {
    const id = `ses_${String(i).padStart(6, '0')}`
    const createdAt = new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString()
    const lines = [header(id, createdAt)]
    let size = lines[0]?.length ?? 0
    for (let seq = 1; size < MID_SESSION_BYTES; seq++) {
      const line = `${JSON.stringify({ seq, type: 'context/note', time: createdAt, data: { text: `note ${seq} ${'x'.repeat(300)}` } })}\n`
      lines.push(line)
      size += line.length
    }
    writeFileSync(join(storeDir, `${id}.jsonl`), lines.join(''), { mode: 0o600 })
  }
  const cold = await coldListTime(storeDir, false)
  const coldCatalog = await coldListTime(storeDir, true)
  const baseline = await timeEach(5, () => readWholeFiles(storeDir))
  const row = (name: string, ours: number, note: string): BenchRow => ({
    group: 'persistence',
    name: `list of ${MID_SESSIONS} sessions of ${MID_SESSION_BYTES / 1024} KB without a title event, ${name}`,
    ours,
    baselineName: `each of the ${MID_SESSIONS} files read whole`,
    baseline,
    unit: 'ms',
    better: 'lower',
    note,
  })
  return [
    row('cold, no saved catalog', cold, 'the title search reads each file from the end to its start'),
    row('cold, the catalog the last backend saved', coldCatalog, 'reads the catalog, then one stat per file'),
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
