import { createHash } from 'node:crypto'
import type pg from 'pg'
import type { PostgresPool } from './pool.js'

/** A blob's name: `sha256:` and the 64 hex digits of its bytes' SHA-256. */
const NAME = /^sha256:([0-9a-f]{64})$/

/** What a collection removed, and how many blobs it left. */
export interface PgBlobCollection {
  readonly removed: number
  readonly kept: number
}

/**
 * File checkpoints' content in the database (`dsh_blobs`, migration 2): one row per distinct
 * content, keyed by its SHA-256, shared by every session and host. `put` resolves once the row is
 * committed, which the agent awaits before appending the `checkpoint:file` event naming it, so an
 * acknowledged event never names a blob that is not stored. `get` checks the bytes against their
 * name. Which event rows name a blob is kept by a trigger (`dsh_blob_refs`); {@link collect}
 * removes the blobs none names, sparing those put within the grace (an event naming one may still
 * be on its way from some host).
 */
export class PgBlobs {
  private collecting: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly db: PostgresPool,
    private readonly ready: Promise<void>,
    private readonly graceMs: number,
  ) {}

  /** Keeps `bytes`; resolves their name once committed (an existing blob is refreshed, and repaired when damaged). */
  async put(bytes: Uint8Array): Promise<`sha256:${string}`> {
    await this.ready
    const hex = createHash('sha256').update(bytes).digest('hex')
    await this.db.query(
      `INSERT INTO dsh_blobs (hash, bytes) VALUES ($1, $2) ON CONFLICT (hash) DO UPDATE SET touched_at = now(),
         bytes = CASE WHEN encode(sha256(dsh_blobs.bytes), 'hex') = dsh_blobs.hash THEN dsh_blobs.bytes ELSE EXCLUDED.bytes END`,
      [hex, Buffer.from(bytes)],
    )
    return `sha256:${hex}`
  }

  /** The bytes named `name`, or undefined when they are not kept. Throws when the row does not hold them. */
  async get(name: `sha256:${string}`): Promise<Buffer | undefined> {
    const hex = NAME.exec(name)?.[1]
    if (hex === undefined) return undefined
    await this.ready
    const { rows } = await this.db.query<{ bytes: Buffer }>('SELECT bytes FROM dsh_blobs WHERE hash = $1', [
      hex,
    ])
    const bytes = rows[0]?.bytes
    if (bytes === undefined) return undefined
    if (createHash('sha256').update(bytes).digest('hex') !== hex)
      throw new Error(`blob ${name} does not hold the bytes it names (corrupt)`)
    return bytes
  }

  /** Removes the blobs no event row names and not put within `graceMs` (default: this store's grace). */
  async collect(graceMs = this.graceMs): Promise<PgBlobCollection> {
    await this.ready
    return this.db.transaction((client) => collectBlobs(client, graceMs))
  }

  /** Starts a collection in the background (after a delete); {@link idle} waits for it. Never rejects. */
  collectSoon(warn: (message: string) => void): void {
    this.collecting = this.collecting
      .then(() => this.collect())
      .catch((error: unknown) => warn(`postgres: collecting checkpoint blobs failed: ${String(error)}`))
  }

  idle(): Promise<unknown> {
    return this.collecting
  }
}

/** One collection, in the caller's transaction. */
export async function collectBlobs(client: pg.ClientBase, graceMs: number): Promise<PgBlobCollection> {
  const removed = await client.query(
    `DELETE FROM dsh_blobs b WHERE b.touched_at < now() - make_interval(secs => $1::double precision / 1000)
       AND NOT EXISTS (SELECT 1 FROM dsh_blob_refs r WHERE r.hash = b.hash)`,
    [graceMs],
  )
  const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM dsh_blobs')
  return { removed: removed.rowCount ?? 0, kept: Number(rows[0]?.n ?? 0) }
}
