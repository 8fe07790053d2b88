import type pg from 'pg'
import type { SessionId } from '../../session/ids.js'
import { BLOB_GRACE_MS } from '../blobs/blob-collector.js'
import { parseHeader } from '../file-format.js'
import { type PgBlobCollection, PgBlobs } from '../postgres/blobs.js'
import { PostgresPool } from '../postgres/pool.js'
import { segmentsOf, sessionRow } from '../postgres/reads/reads.js'
import { migrate } from '../postgres/schema/schema.js'
import {
  type BlobName,
  type CopyStore,
  type ScannedSession,
  SessionTaken,
  type StoredHead,
} from './copy-store.js'
import { insertCopied } from './pg-copy-write.js'

/** Rows fetched per query while a session's lines are read. */
const CHUNK = 2000

/**
 * A PostgreSQL database as one side of a copy: rows read as their stored text (`header::text`,
 * `body::text`, through fork references), a session written in one transaction (its row, its own
 * rows, a reference to its parent's rows where it shares them, its JSONL file form), blobs as
 * `dsh_blobs` rows. Opening migrates the schema as a start of dsh-acp would.
 */
export class PgCopyStore implements CopyStore {
  private readonly blobs: PgBlobs

  private constructor(
    readonly name: string,
    private readonly db: PostgresPool,
  ) {
    this.blobs = new PgBlobs(db, Promise.resolve(), BLOB_GRACE_MS)
  }

  /** Connects and migrates; a bad URL or an unreachable database is an error naming it (never the password). */
  static async open(url: string): Promise<PgCopyStore> {
    const name = describe(url)
    const db = new PostgresPool({ url, poolSize: 4, statementTimeoutMs: 0, connectAttempts: 3 }, (m) =>
      process.stderr.write(`dsh-acp: ${m}\n`),
    )
    let client: pg.PoolClient | undefined
    try {
      client = await db.connect()
      await migrate(client)
    } catch (error) {
      client?.release()
      client = undefined
      await db.end().catch(() => {})
      throw new Error(`postgres ${name}: ${(error as Error).message}`)
    }
    client.release()
    return new PgCopyStore(name, db)
  }

  async ids(): Promise<SessionId[]> {
    const { rows } = await this.db.query<{ id: string }>('SELECT id FROM dsh_sessions ORDER BY id')
    return rows.map((r) => r.id)
  }

  async head(id: SessionId): Promise<StoredHead | undefined> {
    const { rows } = await this.db.query<{
      header: string
      first_line: string | null
      record: string | null
    }>(
      `SELECT s.header::text AS header, f.first_line, f.record FROM dsh_sessions s
         LEFT JOIN dsh_file_forms f ON f.session_id = s.id WHERE s.id = $1`,
      [id],
    )
    const row = rows[0]
    if (!row) return undefined
    return {
      id,
      header: parseHeader(row.header, `postgres:${id}`, id),
      headerText: row.header,
      ...(row.first_line !== null &&
        row.record !== null && {
          fileForm: { firstLine: row.first_line, record: row.record },
        }),
    }
  }

  async *lines(id: SessionId): AsyncGenerator<Buffer> {
    const client = await this.db.connect()
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
      yield* rowLines(client, id, Number.POSITIVE_INFINITY)
      await client.query('COMMIT')
    } finally {
      await client.query('ROLLBACK').catch(() => {})
      client.release()
    }
  }

  async tornBytes(): Promise<number> {
    return 0
  }

  getBlob(name: BlobName): Promise<Buffer | undefined> {
    return this.blobs.get(name)
  }

  putBlob(bytes: Buffer): Promise<BlobName> {
    return this.blobs.put(bytes)
  }

  async write(scanned: ScannedSession, lines: AsyncIterable<Buffer>): Promise<void> {
    const taken = await this.db.transaction((client) =>
      insertCopied(client, scanned, lines, (parent, limit) => rowLines(client, parent, limit)),
    )
    if (taken) throw new SessionTaken(scanned.head.id)
  }

  /** `dsh-acp store gc`: removes the blobs no event row names, sparing those put within `graceMs`. */
  collectBlobs(graceMs: number): Promise<PgBlobCollection> {
    return this.blobs.collect(graceMs)
  }

  close(): Promise<void> {
    return this.db.end()
  }
}

/** The first `limit` event lines of session `id` as stored (through its fork references), in seq order. */
export async function* rowLines(client: pg.ClientBase, id: SessionId, limit: number): AsyncGenerator<Buffer> {
  const row = await sessionRow(client, id)
  if (!row) return
  let next = 1
  for (const segment of await segmentsOf(client, id, row)) {
    const to = Math.min(segment.to, limit)
    while (next <= to) {
      const { rows } = await client.query<{ seq: number; body: string }>(
        'SELECT seq, body::text AS body FROM dsh_events WHERE session_id = $1 AND seq >= $2 AND seq <= $3 ORDER BY seq LIMIT $4',
        [segment.stream, next, to, CHUNK],
      )
      for (const { seq, body } of rows) {
        if (seq !== next) throw new Error(`postgres: session ${id}: event ${next} is missing`)
        yield Buffer.from(body, 'utf8')
        next++
      }
      if (rows.length === 0) throw new Error(`postgres: session ${id}: event ${next} is missing`)
    }
  }
}

function describe(url: string): string {
  try {
    const at = new URL(url)
    return `${at.hostname || 'localhost'}:${at.port || '5432'}${at.pathname}`
  } catch {
    throw new Error('the PostgreSQL URL is not a URL (postgres://user@host:port/database)')
  }
}
