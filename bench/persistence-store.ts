import { Context } from 'cordis'
import { type JsonlPersistence, persistencePlugin } from '../src/persistence/index.js'
import { type SessionStore, sessionsPlugin } from '../src/session/index.js'
import { collectGarbage, median } from './harness.js'

/** The persistence bench's store: a real store and JSONL backend in this process. */
export interface Store {
  readonly sessions: SessionStore
  readonly persistence: JsonlPersistence
  stop(): Promise<void>
}

export async function startStore(dir: string): Promise<Store> {
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
