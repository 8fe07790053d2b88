import type { Context } from 'cordis'
import { persistencePlugin } from './jsonl-persistence.js'
import { isPostgresUrl } from './store-paths.js'

export { isPostgresUrl } from './store-paths.js'

/** Where a file checkpoint's content is kept: content-addressed, shared by the store's sessions. */
export interface StoreBlobs {
  put(bytes: Uint8Array): Promise<`sha256:${string}`>
  get(name: `sha256:${string}`): Promise<Buffer | undefined>
}

/** What {@link plugPersistence} plugged: `ready` to await before serving, and the store's blobs (PostgreSQL). */
export interface PluggedStore {
  ready(): Promise<void>
  /** The database's checkpoint blobs; absent for a directory (the agent uses its `blobs/`). */
  readonly blobs?: StoreBlobs
}

/**
 * Plugs the backend a store location names into `ctx` (after the store): the PostgreSQL backend for
 * a `postgres://` or `postgresql://` URL (loaded only then: the JSONL default never loads `pg`),
 * else the JSONL backend on that directory. Resolves `ready`: what to await after `ctx.start()`
 * before serving (the database reached and its schema migrated; nothing for a directory).
 */
export async function plugPersistence(ctx: Context, store: string): Promise<PluggedStore> {
  if (isPostgresUrl(store)) {
    const { PostgresPersistence, postgresPersistencePlugin } = await import('./postgres/pg-persistence.js')
    ctx.plugin(postgresPersistencePlugin, { url: store })
    const backend = () => {
      const persistence = ctx.get('persistence')
      if (!(persistence instanceof PostgresPersistence))
        throw new Error('the PostgreSQL store is not running')
      return persistence
    }
    return {
      ready: async () => {
        await backend().ready
      },
      // The agent's file checkpoints keep their large contents in the database, beside the sessions.
      blobs: { put: (bytes) => backend().blobs.put(bytes), get: (name) => backend().blobs.get(name) },
    }
  }
  ctx.plugin(persistencePlugin, { dir: store })
  return { ready: async () => {} }
}
