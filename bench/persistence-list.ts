import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { open, readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import { JsonlPersistence } from '../src/persistence/index.js'
import { sessionsPlugin } from '../src/session/index.js'
import type { BenchRow } from './harness.js'
import { header, startStore, timeEach } from './persistence-store.js'

/** The persistence bench's list rows: cold and warm lists of stored sessions, next to reading their files. */
const LIST_SESSIONS = 10_000
/** Sessions of the cold-list row whose files are larger than the catalog's first read. */
const MID_SESSIONS = 1_000
const MID_SESSION_BYTES = 64 * 1024

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

export async function listRows(dir: string): Promise<BenchRow[]> {
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
export async function midListRow(dir: string): Promise<BenchRow[]> {
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
