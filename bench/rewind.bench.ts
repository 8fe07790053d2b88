import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { routeLogsToStderr } from '../src/process/logging.js'
import type { BenchRow } from './harness.js'
import { header, startStore, timeEach } from './persistence-store.js'

/**
 * A ~50 MB session of standalone notes (every seq is a closed boundary), like the persistence
 * bench's: 1.8 KB notes, one 200 KB note every 500. Returns the byte offset after each event.
 */
function writeBigSession(path: string, id: string): number[] {
  const chunks: string[] = [header(id, '2024-01-01T00:00:00.000Z')]
  const ends: number[] = []
  let size = Buffer.byteLength(chunks[0] as string)
  for (let seq = 1; size < 50e6; seq++) {
    const text = `${seq}:`.padEnd(seq % 500 === 0 ? 200_000 : 1800, 'abcdefghij')
    const line = `${JSON.stringify({ seq, type: 'context/note', time: '2024-01-01T00:00:01.000Z', data: { text } })}\n`
    chunks.push(line)
    size += line.length
    ends.push(size)
  }
  writeFileSync(path, chunks.join(''), { mode: 0o600 })
  return ends
}

/** The kept bytes (header and events through `boundary`) copied with copyFile, then fdatasynced. */
async function copyKept(source: string, keptBytes: number, dir: string): Promise<() => Promise<number>> {
  const kept = join(dir, 'kept.src')
  const handle = await open(source, 'r')
  const buffer = Buffer.allocUnsafe(keptBytes)
  await handle.read(buffer, 0, keptBytes, 0)
  await handle.close()
  writeFileSync(kept, buffer)
  const target = join(dir, 'kept.copy')
  return () =>
    timeEach(
      5,
      async () => {
        copyFileSync(kept, target)
        const copy = await open(target, 'r+')
        await copy.datasync()
        await copy.close()
      },
      () => rm(target, { force: true }),
    )
}

/** `ctx.sessions.rewind` of a loaded 50 MB session to `keep(lastSeq)`, each run on a fresh copy. */
async function rewindRow(dir: string, fraction: number): Promise<BenchRow> {
  const what = `to ${Math.round(fraction * 100)} % of its bytes`
  const storeDir = join(dir, `store-${Math.round(fraction * 100)}`)
  mkdirSync(storeDir, { recursive: true, mode: 0o700 })
  const original = join(dir, 'original.jsonl')
  const ends = writeBigSession(original, 'big')
  const total = ends[ends.length - 1] as number
  // The first closed boundary at or past the fraction of the file (every seq is one here).
  const boundary = ends.findIndex((end) => end >= fraction * total) + 1
  const keptBytes = ends[boundary - 1] as number
  const store = await startStore(storeDir)
  let run = 0
  const ours = await timeEach(
    5,
    async () => {
      const session = store.sessions.get(`big_${run}`)
      if (!session) throw new Error('no session to rewind')
      await store.sessions.rewind(session, boundary, { branchId: `branch_${run}` })
    },
    async () => {
      if (run > 0) {
        await store.sessions.delete(`big_${run}`)
        await store.sessions.delete(`branch_${run}`)
      }
      run++
      const file = join(storeDir, `big_${run}.jsonl`)
      const text = readFileSync(original, 'utf8').replace('"id":"big"', `"id":"big_${run}"`)
      writeFileSync(file, text, { mode: 0o600 })
      await store.sessions.load(`big_${run}`)
    },
  )
  await store.stop()
  const baseline = await (await copyKept(original, keptBytes, dir))()
  const mb = total / 1e6
  return {
    group: 'rewind',
    name: `rewind of a loaded ${mb.toFixed(0)} MB session ${what} (branch + replace, durable)`,
    ours,
    baselineName: `copyFile + fdatasync of the kept ${(keptBytes / 1e6).toFixed(1)} MB`,
    baseline,
    unit: 'ms',
    better: 'lower',
    target: 1.2,
    note: 'the branch is a byte copy of the whole log (+ fdatasync, rename, dir fsync); the session file is replaced by a copy of its kept bytes (+ fdatasync, rename, dir fsync); issue 35.10 wants the branch made by rename instead',
  }
}

export const suite = {
  name: 'rewind',
  async run(): Promise<BenchRow[]> {
    routeLogsToStderr(1)
    const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-rewind-'))
    try {
      return [await rewindRow(dir, 0.1), await rewindRow(dir, 0.5), await rewindRow(dir, 0.9)]
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
}
