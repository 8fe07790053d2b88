import type pg from 'pg'
import { SessionError, SessionErrorCode } from '../../../session/errors.js'
import type { PostgresPool } from '../pool.js'
import { BLOBS_MIGRATION, FILE_FORMS_MIGRATION } from './schema-blobs.js'
import { BOARD_MIGRATION } from './schema-board.js'
import { STREAMS_MIGRATION } from './schema-streams.js'

/**
 * The schema, as an ordered list of migrations. Applied at start by {@link migrate}, each in its own
 * transaction, under a transaction-level advisory lock so hosts starting together apply each once.
 * A migration is never edited once released: a change is a new entry. `dsh_schema_migrations` records
 * which were applied; a database whose newest migration is unknown to this build (a newer
 * dsh-acp migrated it) is refused rather than written with an older schema's assumptions.
 */
export const MIGRATIONS: readonly {
  readonly version: number
  readonly name: string
  readonly sql: string
}[] = [
  {
    version: 1,
    name: 'sessions and events',
    sql: `
      CREATE TABLE dsh_sessions (
        id text COLLATE "C" PRIMARY KEY,
        -- The header as the JSONL file's line 1 holds it (key order kept: json, not jsonb).
        header json NOT NULL,
        cwd text COLLATE "C" NOT NULL,
        created_at text NOT NULL,
        -- ISO-8601 strings, compared as text exactly as the JSONL listing compares them.
        updated_at text COLLATE "C" NOT NULL,
        title text,
        archived boolean NOT NULL DEFAULT false,
        cost json,
        -- The expected version: the seq of the session's last event.
        last_seq integer NOT NULL DEFAULT 0 CHECK (last_seq >= 0),
        -- Fork as metadata: events 1..base_length are base_session's (read through its own base).
        base_session text REFERENCES dsh_sessions (id),
        base_length integer NOT NULL DEFAULT 0 CHECK (base_length >= 0),
        CHECK ((base_session IS NULL) = (base_length = 0))
      );
      CREATE INDEX dsh_sessions_activity ON dsh_sessions (updated_at DESC, id DESC);
      CREATE INDEX dsh_sessions_cwd_activity ON dsh_sessions (cwd, updated_at DESC, id DESC);
      CREATE INDEX dsh_sessions_base ON dsh_sessions (base_session) WHERE base_session IS NOT NULL;
      CREATE TABLE dsh_events (
        session_id text NOT NULL REFERENCES dsh_sessions (id),
        seq integer NOT NULL CHECK (seq >= 1),
        -- The event exactly as the JSONL file's line holds it.
        body json NOT NULL,
        PRIMARY KEY (session_id, seq)
      );
    `,
  },
  BLOBS_MIGRATION,
  FILE_FORMS_MIGRATION,
  STREAMS_MIGRATION,
  BOARD_MIGRATION,
]

/** The key of the advisory lock migrations run under (any fixed bigint unique to dsh-acp). */
const MIGRATION_LOCK = 7_236_084_511_001

/** Applies every migration the database lacks, in order; refuses a database migrated by a newer build. */
export async function migrate(client: pg.ClientBase): Promise<void> {
  await client.query('BEGIN')
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
    await client.query(
      'CREATE TABLE IF NOT EXISTS dsh_schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    )
    const { rows } = await client.query<{ version: number }>('SELECT version FROM dsh_schema_migrations')
    const applied = new Set(rows.map((r) => r.version))
    const newest = Math.max(0, ...applied)
    const known = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0
    if (newest > known) {
      throw new Error(
        `the database's schema is version ${newest}, newer than this dsh-acp knows (${known}): upgrade dsh-acp`,
      )
    }
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version)) continue
      await client.query(migration.sql)
      await client.query('INSERT INTO dsh_schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ])
    }
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  }
}

/** Connects and migrates (see {@link migrate}); a failure is `PERSISTENCE_FAILED` naming `where` and the step. */
export async function migrateAt(db: PostgresPool, where: string): Promise<void> {
  let client: pg.PoolClient | undefined
  let op = 'connecting to the database'
  try {
    client = await db.connect()
    op = 'migrating the schema'
    await migrate(client)
  } catch (error) {
    throw new SessionError(
      SessionErrorCode.PERSISTENCE_FAILED,
      `postgres: ${op} at ${where} failed: ${(error as Error).message}`,
      { op: 'migrate' },
      { cause: error },
    )
  } finally {
    client?.release()
  }
}
