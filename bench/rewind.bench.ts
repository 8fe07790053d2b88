import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { routeLogsToStderr } from '../src/process/logging.js'
import type { BenchRow } from './harness.js'
import { collectGarbage, median } from './harness.js'
import { header, type Store, startStore } from './persistence-store.js'
import { floorRewind, writeSynced } from './rewind-floor.js'

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

/** Runs per row (after a warm-up): medians of 9 hold still on a shared machine where 5 did not. */
const RUNS = Number(process.env.DSH_BENCH_REWIND_RUNS ?? 9)

/** The medians of one fraction's runs. */
interface Timings {
  readonly ours: number[]
  readonly baseline: number[]
  /** The file steps alone (`rewind-floor.ts`), the kept bytes through a buffer, and in the kernel. */
  readonly floor: number[]
  readonly kernelFloor: number[]
}

/** The rewind of a fresh loaded copy of the session, timed (the store's whole `rewind`). */
async function timeRewind(store: Store, file: string, text: string, run: number, boundary: number) {
  writeSynced(file, text.replace('"id":"big"', `"id":"big_${run}"`))
  const session = await store.sessions.load(`big_${run}`)
  // What the load left to the backend's background (writes, the list's catalog, blob collection)
  // is not the rewind's cost: a rewind comes long after its session's load.
  await store.persistence.idle()
  collectGarbage()
  const start = performance.now()
  await store.sessions.rewind(session, boundary, { branchId: `branch_${run}` })
  const elapsed = performance.now() - start
  await store.sessions.delete(`big_${run}`)
  await store.sessions.delete(`branch_${run}`)
  // The blob collection a delete starts (it reads every session file) is not the next run's cost.
  await store.persistence.idle()
  collectGarbage()
  return elapsed
}

/**
 * `ctx.sessions.rewind` of a loaded 50 MB session to `fraction` of its bytes, each run on a fresh
 * copy, interleaved run by run with the baseline (a `copyFile` + fdatasync of the kept bytes) and
 * the two floors (the rewind's file steps alone), so all meet the same load on a shared machine.
 */
async function measure(dir: string, fraction: number) {
  const storeDir = join(dir, `store-${Math.round(fraction * 100)}`)
  mkdirSync(storeDir, { recursive: true, mode: 0o700 })
  const original = join(dir, 'original.jsonl')
  const ends = writeBigSession(original, 'big')
  const total = ends[ends.length - 1] as number
  // The first closed boundary at or past the fraction of the file (every seq is one here).
  const boundary = ends.findIndex((end) => end >= fraction * total) + 1
  const kept = { bytes: ends[boundary - 1] as number, file: '' }
  kept.file = await keptFile(original, kept.bytes, dir)
  const text = readFileSync(original, 'utf8')
  const store = await startStore(storeDir)
  const times: Timings = { ours: [], baseline: [], floor: [], kernelFloor: [] }
  const floorFile = join(dir, 'floor.jsonl')
  // The first run of each warms the page cache and the code.
  for (let run = 0; run <= RUNS; run++) {
    const file = join(storeDir, `big_${run}.jsonl`)
    const ours = await timeRewind(store, file, text, run, boundary)
    const copied = await copyAndSync(kept.file, join(dir, 'kept.copy'))
    writeSynced(floorFile, text)
    const floor = await floorRewind(dir, floorFile, kept, false)
    writeSynced(floorFile, text)
    const kernelFloor = await floorRewind(dir, floorFile, kept, true)
    if (run === 0) continue
    times.ours.push(ours)
    times.baseline.push(copied)
    times.floor.push(floor)
    times.kernelFloor.push(kernelFloor)
  }
  await store.stop()
  return { times, total, keptBytes: kept.bytes }
}

async function rewindRows(dir: string, fraction: number): Promise<BenchRow[]> {
  const { times, total, keptBytes } = await measure(dir, fraction)
  const what = `to ${Math.round(fraction * 100)} % of its bytes`
  const row = {
    group: 'rewind',
    baselineName: `copyFile + fdatasync of the kept ${(keptBytes / 1e6).toFixed(1)} MB`,
    baseline: median(times.baseline),
    unit: 'ms',
    better: 'lower',
  } as const
  return [
    {
      ...row,
      name: `rewind of a loaded ${(total / 1e6).toFixed(0)} MB session ${what} (link + kept prefix, durable)`,
      ours: median(times.ours),
      target: 1.2,
      note: `issue 35.10: the old file becomes the branch by a link (its header in a small record, its tail appended); the session file is written anew from the kept bytes and the marker, copied through a buffer with an fdatasync started beside the copy every 16 MiB (metadata calls synchronous; one round of syncs: the fdatasyncs of it and of the record and the dir fsync of the link; then the rename and its dir fsync; the new session object is built while the syncs run); medians of ${RUNS} runs interleaved with the baseline and the floors`,
    },
    {
      ...row,
      name: `floor ${what}: the rewind's file steps alone, kept bytes through a buffer`,
      ours: median(times.floor),
      note: 'record, buffered copy (an fdatasync beside it every 16 MiB) and marker, link, three syncs at once, rename, dir fsync, in plain node:fs (rewind-floor.ts): the least the rewind can cost with the copy Node offers',
    },
    {
      ...row,
      name: `floor ${what}: the same steps, kept bytes copied in the kernel`,
      ours: median(times.kernelFloor),
      note: 'as the floor above, the kept bytes taken from a file of their own by copyFile (what a copy_file_range of a range would cost; Node has none): the gap to the floor above is the copy through user space',
    },
  ]
}

export const suite = {
  name: 'rewind',
  async run(): Promise<BenchRow[]> {
    routeLogsToStderr(1)
    const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-rewind-'))
    try {
      return [
        ...(await rewindRows(dir, 0.1)),
        ...(await rewindRows(dir, 0.5)),
        ...(await rewindRows(dir, 0.9)),
      ]
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
}
