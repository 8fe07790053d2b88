import { Context } from 'cordis'
import { createSequentialIdGenerator } from '../src/session/ids.js'
import type { AnyEventInput } from '../src/session/log/events.js'
import type { Session } from '../src/session/session.js'
import { sessionsPlugin } from '../src/session/store/store.js'
import { type BenchRow, collectGarbage, timeMedian } from './harness.js'

/**
 * Fork at the last boundary of sessions of 1k, 10k and 100k events (about 500 bytes each on
 * average as JSON, and one event in about 200 a 50 KB tool output), next to `structuredClone` of the same prefix in the same
 * run; and the heap each fork keeps, next to the heap one deep copy keeps. Sessions are built by
 * appending through the public API. Heap rows need `node --expose-gc` (the bench script sets it).
 */

const SIZES = [1_000, 10_000, 100_000]
/** One turn is 11 events, one of them a tool result: every 18th result is big, about 1 event in 200. */
const BIG_RESULT_EVERY = 18
const FILLER = 'The quick brown fox jumps over the lazy dog while the build runs its tests again. '

/** About `bytes` characters of text, distinct per `n` so nothing is shared by accident. */
function text(bytes: number, n: number): string {
  const head = `#${n} `
  return head + FILLER.repeat(Math.ceil(bytes / FILLER.length)).slice(0, Math.max(0, bytes - head.length))
}

/**
 * Appends `count` events shaped like real turns (user message, steps with text and tool calls,
 * turn end), padding with context notes so the log ends exactly at `count`, at a closed boundary.
 */
function fill(session: Session, count: number): void {
  let n = 0
  let results = 0
  const add = (input: AnyEventInput) => {
    session.append(input)
    n++
  }
  for (let turn = 1; n + 11 <= count; turn++) {
    add({ type: 'turn/start', data: { turn } })
    add({ type: 'user/message', data: { turn, content: [{ type: 'text', text: text(850, n) }] } })
    for (let step = 1; step <= 2; step++) {
      add({ type: 'step/start', data: { turn, step } })
      add({ type: 'assistant/message', data: { turn, step, content: text(700, n), thought: text(150, n) } })
      if (step === 1) {
        const callId = `call_${turn}`
        add({
          type: 'tool/call',
          data: { turn, step, callId, name: 'read_file', input: { path: text(120, n), query: text(600, n) } },
        })
        const big = ++results % BIG_RESULT_EVERY === 0
        add({ type: 'tool/result', data: { turn, step, callId, output: text(big ? 50_000 : 850, n) } })
      }
      add({ type: 'step/end', data: { turn, step } })
    }
    add({ type: 'turn/end', data: { turn, reason: 'completed' } })
  }
  while (n < count) add({ type: 'context/note', data: { text: text(850, n) } })
}

const MB = 1024 * 1024

/** Heap kept per call of `make` (MB), holding `count` results alive: gc, measure, make, gc, measure. */
function heapPer(count: number, make: () => unknown): number {
  const kept: unknown[] = []
  collectGarbage()
  const before = process.memoryUsage().heapUsed
  for (let i = 0; i < count; i++) kept.push(make())
  collectGarbage()
  const after = process.memoryUsage().heapUsed
  const per = (after - before) / count / MB
  kept.length = 0
  return Math.max(per, 0)
}

async function measure(size: number): Promise<BenchRow[]> {
  const ctx = new Context()
  ctx.plugin(sessionsPlugin, { idGenerator: createSequentialIdGenerator('child_') })
  await ctx.start()
  const sessions = ctx.sessions
  const source = sessions.create('source')
  fill(source, size)
  const boundary = source.lastSeq
  const prefix = source.eventsThrough(boundary)
  const children: string[] = []
  const fork = () => {
    children.push(sessions.fork(source, boundary).id)
  }
  const dropChildren = async () => {
    for (const id of children.splice(0)) await sessions.delete(id)
  }
  const runs = size >= 100_000 ? 5 : 9
  const forkMs = await timeMedian(fork, runs)
  await dropChildren()
  const cloneMs = await timeMedian(() => structuredClone(prefix), runs)

  const forkHeap = heapPer(20, () => {
    fork()
  })
  await dropChildren()
  const cloneHeap = heapPer(size >= 100_000 ? 2 : 5, () => structuredClone(prefix))
  const sizes = prefix.map((event) => Buffer.byteLength(JSON.stringify(event)))
  const logMb = sizes.reduce((a, b) => a + b, 0) / MB
  const small = sizes.filter((bytes) => bytes < 40_000)
  const smallAvg = small.reduce((a, b) => a + b, 0) / small.length
  await ctx.stop()

  const group = `fork ${size / 1000}k events`
  const hasGc = typeof (globalThis as { gc?: unknown }).gc === 'function'
  return [
    {
      group,
      name: 'ctx.sessions.fork(source) at the last boundary',
      ours: forkMs,
      baselineName: 'structuredClone(prefix)',
      baseline: cloneMs,
      unit: 'ms',
      better: 'lower',
      ...(size >= 100_000 && { target: 1.0 }),
      note: `${boundary} events, ${logMb.toFixed(1)} MB as JSON: ${small.length} of ~${smallAvg.toFixed(0)} B, ${sizes.length - small.length} of ~50 KB`,
    },
    {
      group,
      name: 'heap kept per fork',
      ours: forkHeap,
      baselineName: 'heap kept per structuredClone',
      baseline: cloneHeap,
      unit: 'MB',
      better: 'lower',
      note: hasGc
        ? `${(forkHeap * 1024).toFixed(1)} KB per fork (20 forks held); events are shared, frozen`
        : 'run with node --expose-gc for exact heap figures',
    },
  ]
}

export const suite = {
  name: 'store',
  async run(): Promise<BenchRow[]> {
    const rows: BenchRow[] = []
    for (const size of SIZES) rows.push(...(await measure(size)))
    return rows
  },
}
