import { Context } from 'cordis'
import { JsonlPersistence, persistencePlugin } from '../src/persistence/index.js'
import { type SessionStore, sessionsPlugin } from '../src/session/index.js'
import type { SessionPersistence } from '../src/session/store/persistence-port.js'
import { collectGarbage, median } from './harness.js'

/** A bench's store: a real store and a backend of kind `P` in this process, plugged as the app plugs it. */
export interface BenchStore<P extends SessionPersistence> {
  readonly sessions: SessionStore
  readonly persistence: P
  /** Closes every session, waits for the backend, stops the context. */
  stop(): Promise<void>
}

/** The persistence bench's store on the JSONL backend. */
export type Store = BenchStore<JsonlPersistence>

/**
 * Starts a store with the backend `plug` adds; `kind` is the backend's class (a check that it is
 * the one that started).
 */
export async function startBenchStore<P extends SessionPersistence>(
  plug: (ctx: Context) => void,
  kind: abstract new (...args: never[]) => P,
): Promise<BenchStore<P>> {
  const ctx = new Context()
  ctx.plugin(sessionsPlugin, { defaultCwd: '/bench' })
  plug(ctx)
  await ctx.start()
  const persistence = ctx.get('persistence')
  if (!(persistence instanceof kind)) throw new Error(`the ${kind.name} backend did not start`)
  return {
    sessions: ctx.sessions,
    persistence,
    async stop() {
      await ctx.sessions.closeAll()
      await persistence.idle()
      await ctx.stop()
      await persistence.idle()
    },
  }
}

export function startStore(dir: string): Promise<Store> {
  return startBenchStore((ctx) => ctx.plugin(persistencePlugin, { dir }), JsonlPersistence)
}

/** The header line of a session file. */
export function header(id: string, createdAt: string): string {
  return `${JSON.stringify({ version: 1, id, createdAt, cwd: '/bench' })}\n`
}

/** Median ms of `fn` over `runs` runs (after one warm-up); `setup` and a GC run untimed before each. */
export async function timeEach(
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
