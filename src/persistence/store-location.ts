import type { Context } from 'cordis'
import { persistencePlugin } from './jsonl-persistence.js'

/** Whether a store location (`--store`, the user file's `store`) names a PostgreSQL database rather than a directory. */
export function isPostgresUrl(store: string): boolean {
  return /^postgres(ql)?:\/\//i.test(store)
}

/**
 * Plugs the backend a store location names into `ctx` (after the store): the PostgreSQL backend for
 * a `postgres://` or `postgresql://` URL (loaded only then: the JSONL default never loads `pg`),
 * else the JSONL backend on that directory. Resolves `ready`: what to await after `ctx.start()`
 * before serving (the database reached and its schema migrated; nothing for a directory).
 */
export async function plugPersistence(ctx: Context, store: string): Promise<{ ready: () => Promise<void> }> {
  if (isPostgresUrl(store)) {
    const { PostgresPersistence, postgresPersistencePlugin } = await import('./postgres/pg-persistence.js')
    ctx.plugin(postgresPersistencePlugin, { url: store })
    return {
      ready: async () => {
        const persistence = ctx.get('persistence')
        if (persistence instanceof PostgresPersistence) await persistence.ready
      },
    }
  }
  ctx.plugin(persistencePlugin, { dir: store })
  return { ready: async () => {} }
}
