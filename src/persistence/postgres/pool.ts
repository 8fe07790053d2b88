import pg from 'pg'
import type { SessionId } from '../../session/ids.js'

/** How the backend talks to the database. Every field has a default fit for a small deployment. */
export interface PostgresConnectionConfig {
  /** `postgres://user:password@host:port/database` (libpq's URI form; `?sslmode=` etc. are honoured by `pg`). */
  readonly url: string
  /** Connections at most in the pool (each held pen takes one while its turn writes). Default 10. */
  readonly poolSize?: number
  /** Server-side `statement_timeout` of every statement, in ms. Default 30 s. */
  readonly statementTimeoutMs?: number
  /** How long one connection attempt may take, in ms. Default 10 s. */
  readonly connectTimeoutMs?: number
  /** Attempts to connect before an operation fails (backoff 100 ms doubling, at most 2 s between). Default 5. */
  readonly connectAttempts?: number
  /**
   * Whether other hosts' writes to the sessions live here are followed as they happen (LISTEN on a
   * connection of its own). Default true; off (a pooler that cannot LISTEN), they are taken in at
   * the next load or pen.
   */
  readonly live?: boolean
  /** How often the sessions live here are checked for other hosts' writes a notice missed (ms). Default 5 s. */
  readonly checkEveryMs?: number
}

/** Errors worth another connection attempt: the server is unreachable, starting, or shutting down. */
const TRANSIENT_CONNECT = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  '57P01',
  '57P03',
  '53300',
])

/**
 * A `pg.Pool` and connections from it that are retried with exponential backoff while the server
 * is unreachable (restarting, failing over), so a short outage costs latency, not failures. An
 * error of an idle pooled connection (the server restarted) only drops that connection.
 */
export class PostgresPool {
  readonly pool: pg.Pool
  private readonly attempts: number
  private readonly guarded = new WeakSet<pg.PoolClient>()

  constructor(
    config: PostgresConnectionConfig,
    private readonly warn: (message: string) => void,
  ) {
    this.pool = new pg.Pool({
      connectionString: config.url,
      max: config.poolSize ?? 10,
      statement_timeout: config.statementTimeoutMs ?? 30_000,
      connectionTimeoutMillis: config.connectTimeoutMs ?? 10_000,
      idleTimeoutMillis: 30_000,
      application_name: 'dsh-acp',
    })
    this.pool.on('error', (error) => this.warn(`postgres: an idle connection failed: ${error.message}`))
    this.attempts = Math.max(1, config.connectAttempts ?? 5)
  }

  /** A connection of the pool (release it), retried with backoff while the server is unreachable. */
  async connect(): Promise<pg.PoolClient> {
    let delay = 100
    for (let attempt = 1; ; attempt++) {
      try {
        const client = await this.pool.connect()
        if (!this.guarded.has(client)) {
          this.guarded.add(client)
          // A connection that dies between two queries of its user: the next query fails (and the
          // user lets it go), not the process. The pool handles it meanwhile if it is idle.
          client.on('error', () => {})
        }
        return client
      } catch (error) {
        const code = (error as { code?: string }).code
        const transient =
          code === undefined
            ? /timeout|terminat|connect/i.test((error as Error).message)
            : TRANSIENT_CONNECT.has(code)
        if (!transient || attempt >= this.attempts) throw error
        this.warn(`postgres: connecting failed (${(error as Error).message}); retrying in ${delay} ms`)
        await new Promise((resolve) => setTimeout(resolve, delay))
        delay = Math.min(delay * 2, 2000)
      }
    }
  }

  /** Runs `work` on a pooled connection inside one transaction (committed, else rolled back). */
  async transaction<T>(work: (client: pg.ClientBase) => Promise<T>, begin = 'BEGIN'): Promise<T> {
    const client = await this.connect()
    let broken: Error | undefined
    try {
      return await inTransaction(client, work, begin)
    } catch (error) {
      if (isConnectionLoss(error)) broken = error as Error
      throw error
    } finally {
      client.release(broken)
    }
  }

  /** Runs `work` on a pooled connection inside a read-only, repeatable-read transaction: one snapshot. */
  snapshot<T>(work: (client: pg.ClientBase) => Promise<T>): Promise<T> {
    return this.transaction(work, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
  }

  /** Runs one query on a pooled connection. */
  async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    const client = await this.connect()
    let broken: Error | undefined
    try {
      return await client.query<R>(text, values)
    } catch (error) {
      if (isConnectionLoss(error)) broken = error as Error
      throw error
    } finally {
      client.release(broken)
    }
  }

  end(): Promise<void> {
    return this.pool.end()
  }
}

/** `work` inside BEGIN .. COMMIT on `client`; rolled back (and rethrown) when it fails. */
export async function inTransaction<T>(
  client: pg.ClientBase,
  work: (client: pg.ClientBase) => Promise<T>,
  begin = 'BEGIN',
): Promise<T> {
  await client.query(begin)
  try {
    const result = await work(client)
    await client.query('COMMIT')
    return result
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  }
}

/** Whether `error` means the connection itself is gone (not worth returning to the pool). */
export function isConnectionLoss(error: unknown): boolean {
  const code = (error as { code?: string }).code
  if (code !== undefined) return TRANSIENT_CONNECT.has(code) || code.startsWith('08')
  return /Connection terminated|connection .*(ended|closed)|not queryable/i.test(
    (error as Error)?.message ?? '',
  )
}

/** The stored versions (`last_seq`) of sessions `ids`; a removed one is missing. */
export async function storedVersions(
  db: PostgresPool,
  ids: readonly string[],
): Promise<Map<SessionId, number>> {
  const { rows } = await db.query<{ id: SessionId; last_seq: number }>(
    'SELECT id, last_seq FROM dsh_sessions WHERE id = ANY($1::text[])',
    [ids],
  )
  return new Map(rows.map((r) => [r.id, r.last_seq]))
}

/** The database as errors name it: host, port and database, never the password. */
export function describeDatabase(url: string): string {
  try {
    const at = new URL(url)
    return `${at.hostname || 'localhost'}:${at.port || '5432'}${at.pathname}`
  } catch {
    return 'the configured database'
  }
}
