import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { routeLogsToStderr } from '../src/process/logging.js'
import type { BenchRow } from './harness.js'
import { collectGarbage, median } from './harness.js'
import { header, startStore } from './persistence-store.js'

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

/** The kept bytes (header and events through the boundary) as a file of their own, to copy. */
async function keptFile(source: string, keptBytes: number, dir: string): Promise<string> {
  const kept = join(dir, 'kept.src')
  const handle = await open(source, 'r')
  const buffer = Buffer.allocUnsafe(keptBytes)
  await handle.read(buffer, 0, keptBytes, 0)
  await handle.close()
  writeFileSync(kept, buffer)
  return kept
}

/** The baseline, once: `copyFile` of the kept bytes, then an fdatasync of the copy. */
async function copyAndSync(kept: string, target: string): Promise<number> {
  const start = performance.now()
  copyFileSync(kept, target)
  const copy = await open(target, 'r+')
  await copy.datasync()
  await copy.close()
  const elapsed = performance.now() - start
  await rm(target, { force: true })
  return elapsed
}

const RUNS = 5

/**
 * `ctx.sessions.rewind` of a loaded 50 MB session to `fraction` of its bytes, each run on a fresh
 * copy, interleaved with the baseline (a `copyFile` + fdatasync of the kept bytes) run by run, so
 * both meet the same load on a shared machine.
 */
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
  const kept = await keptFile(original, keptBytes, dir)
  const text = readFileSync(original, 'utf8')
  const store = await startStore(storeDir)
  const ours: number[] = []
  const baseline: number[] = []
  for (let run = 0; run <= RUNS; run++) {
    const file = join(storeDir, `big_${run}.jsonl`)
    writeFileSync(file, text.replace('"id":"big"', `"id":"big_${run}"`), { mode: 0o600 })
    // A session's bytes are on disk (each turn's end is fdatasynced), not dirty in the page cache.
    const written = await open(file, 'r+')
    await written.datasync()
    await written.close()
    const session = await store.sessions.load(`big_${run}`)
    collectGarbage()
    const start = performance.now()
    await store.sessions.rewind(session, boundary, { branchId: `branch_${run}` })
    const elapsed = performance.now() - start
    await store.sessions.delete(`big_${run}`)
    await store.sessions.delete(`branch_${run}`)
    collectGarbage()
    const copied = await copyAndSync(kept, join(dir, 'kept.copy'))
    // The first run of each warms the page cache and the code.
    if (run === 0) continue
    ours.push(elapsed)
    baseline.push(copied)
  }
  await store.stop()
  const mb = total / 1e6
  return {
    group: 'rewind',
    name: `rewind of a loaded ${mb.toFixed(0)} MB session ${what} (link + kept prefix, durable)`,
    ours: median(ours),
    baselineName: `copyFile + fdatasync of the kept ${(keptBytes / 1e6).toFixed(1)} MB`,
    baseline: median(baseline),
    unit: 'ms',
    better: 'lower',
    target: 1.2,
    note: 'issue 35.10: the old file becomes the branch by a link (its header in a small record, its tail appended); the session file is written anew from the kept bytes and the marker (one round of syncs: the fdatasyncs of it and of the record and the dir fsync of the link; then the rename and its dir fsync); medians of 5 runs interleaved with the baseline',
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
