import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { type FileSystem, JsonlPersistence, persistencePlugin } from '../../src/persistence/index.js'
import { type SessionStore, type SessionStoreConfig, sessionsPlugin } from '../../src/session/index.js'

export interface StoreFixture {
  readonly ctx: Context
  readonly sessions: SessionStore
  readonly persistence: JsonlPersistence
  /** Errors cordis reported from plugins (apply/start failures). */
  readonly pluginErrors: unknown[]
  /** Closes every live session, waits for the backend, and stops the context. */
  stop(): Promise<void>
}

/** A context with the store and the JSONL backend on `dir`. */
export async function startStore(
  dir: string,
  options: { fs?: FileSystem; store?: SessionStoreConfig } = {},
): Promise<StoreFixture> {
  const ctx = new Context()
  const pluginErrors: unknown[] = []
  ctx.on('internal/error', (error) => {
    pluginErrors.push(error)
  })
  ctx.plugin(sessionsPlugin, { defaultCwd: '/work', ...options.store })
  ctx.plugin(persistencePlugin, { dir, ...(options.fs && { fs: options.fs }) })
  await ctx.start()
  const persistence = ctx.get('persistence')
  if (!(persistence instanceof JsonlPersistence))
    throw new Error(`persistence did not start: ${pluginErrors}`)
  return {
    ctx,
    sessions: ctx.sessions,
    persistence,
    pluginErrors,
    async stop() {
      await ctx.sessions.closeAll().catch(() => {})
      await persistence.idle()
      await ctx.stop()
      await persistence.idle()
    },
  }
}

/** A fresh directory under the OS temp dir; `cleanup` removes it. */
export function tempDir(prefix = 'dsh-persist-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** Appends one complete turn (`turn/start`, `user/message`, a step with a reply, `turn/end`). */
export function appendTurn(session: { append(input: never): unknown; lastTurn: number }, text: string): void {
  const turn = session.lastTurn + 1
  const append = session.append.bind(session) as (input: unknown) => unknown
  append({ type: 'turn/start', data: { turn } })
  append({ type: 'user/message', data: { turn, content: [{ type: 'text', text }] } })
  append({ type: 'step/start', data: { turn, step: 1 } })
  append({ type: 'assistant/message', data: { turn, step: 1, content: `re: ${text}` } })
  append({ type: 'step/end', data: { turn, step: 1 } })
  append({ type: 'turn/end', data: { turn, reason: 'completed' } })
}
