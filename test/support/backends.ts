import { readFileSync, writeFileSync } from 'node:fs'
import { Context } from 'cordis'
import pg from 'pg'
import { JsonlPersistence, persistencePlugin, StorePaths } from '../../src/persistence/index.js'
import { PostgresPersistence, postgresPersistencePlugin } from '../../src/persistence/postgres/index.js'
import type { SessionId } from '../../src/session/ids.js'
import type { SessionPersistence } from '../../src/session/store/persistence-port.js'
import { type SessionStore, type SessionStoreConfig, sessionsPlugin } from '../../src/session/store/store.js'
import { freshSchema, sharedPostgres } from './postgres/test-database.js'
import { tempDir } from './session-store.js'

/** One host: a store on a backend, started like the app starts it. */
export interface BackendHost {
  readonly sessions: SessionStore
  readonly persistence: SessionPersistence
  /** Closes every live session, waits for the backend, stops the context. */
  stop(): Promise<void>
}

/** Where a backend keeps sessions: each `start` is a host (a process) on that one store. */
export interface BackendStore {
  start(config?: SessionStoreConfig): Promise<BackendHost>
  /** Replaces the stored body of event `seq` of session `id` with `body` (a damaged row or line). */
  damage(id: SessionId, seq: number, body: string): Promise<void>
  /** Removes event `seq` of session `id` from storage (a lost row or line). */
  lose(id: SessionId, seq: number): Promise<void>
  /** Removes what the store made. */
  cleanup(): Promise<void>
  /** PostgreSQL: the store's connection string. */
  readonly url?: string
}

export interface Backend {
  readonly name: string
  /** Gets what the backend's stores need ready (the run's PostgreSQL server), for a beforeAll. */
  prepare?(): Promise<unknown>
  /** A fresh, empty store. */
  fresh(): Promise<BackendStore>
}

export async function startHost(
  plug: (ctx: Context) => void,
  config?: SessionStoreConfig,
): Promise<BackendHost> {
  const ctx = new Context()
  const errors: unknown[] = []
  ctx.on('internal/error', (error: unknown) => {
    errors.push(error)
  })
  ctx.plugin(sessionsPlugin, { defaultCwd: '/work', ...config })
  plug(ctx)
  await ctx.start()
  const persistence = ctx.get('persistence')
  if (!persistence) throw new Error(`persistence did not start: ${errors}`)
  if (persistence instanceof PostgresPersistence) await persistence.ready
  return {
    sessions: ctx.sessions,
    persistence,
    async stop() {
      await ctx.sessions.closeAll().catch(() => {})
      await persistence.idle()
      await ctx.stop()
      await persistence.idle()
    },
  }
}

export const jsonlBackend: Backend = {
  name: 'jsonl',
  async fresh() {
    const { dir, cleanup } = tempDir('dsh-contract-')
    const paths = new StorePaths(dir)
    const rewrite = (id: SessionId, edit: (lines: string[]) => void) => {
      const file = paths.sessionFile(id)
      const lines = readFileSync(file, 'utf8').split('\n')
      edit(lines)
      writeFileSync(file, lines.join('\n'))
    }
    return {
      start: (config) =>
        startHost((ctx) => ctx.plugin(persistencePlugin, { dir }), config).then((host) => {
          if (!(host.persistence instanceof JsonlPersistence)) throw new Error('not the JSONL backend')
          return host
        }),
      // Line 1 is the header: event `seq` is line seq + 1.
      damage: async (id, seq, body) => rewrite(id, (lines) => lines.splice(seq, 1, body)),
      lose: async (id, seq) => rewrite(id, (lines) => lines.splice(seq, 1)),
      cleanup: async () => cleanup(),
    }
  },
}

export const postgresBackend: Backend = {
  name: 'postgres',
  prepare: () => sharedPostgres(),
  async fresh() {
    const url = await freshSchema()
    const admin = async (sql: string, values: unknown[]) => {
      const client = new pg.Client(url)
      await client.connect()
      try {
        await client.query(sql, values)
      } finally {
        await client.end()
      }
    }
    return {
      url,
      start: (config) =>
        startHost((ctx) => ctx.plugin(postgresPersistencePlugin, { url, poolSize: 4 }), config),
      damage: (id, seq, body) =>
        admin(
          `UPDATE dsh_events SET body = $3::json WHERE (session_id, seq) = (
             SELECT COALESCE(s.stream, s.id), $2::int FROM dsh_sessions s WHERE s.id = $1)`,
          [id, seq, body],
        ),
      lose: (id, seq) =>
        admin(
          'DELETE FROM dsh_events WHERE session_id = (SELECT COALESCE(stream, id) FROM dsh_sessions WHERE id = $1) AND seq = $2',
          [id, seq],
        ),
      cleanup: async () => {},
    }
  },
}

export const BACKENDS: readonly Backend[] = [jsonlBackend, postgresBackend]
