import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { copyStores } from '../src/persistence/copy/copy-stores.js'
import { JsonlCopyStore } from '../src/persistence/copy/jsonl-copy-store.js'
import { PgCopyStore } from '../src/persistence/copy/pg-copy-store.js'
import { PostgresPersistence, postgresPersistencePlugin } from '../src/persistence/postgres/index.js'
import {
  type PostgresServer,
  startPostgresServer,
  stopPostgresServer,
} from '../test/support/postgres/server.js'
import { type BenchStore, header, startBenchStore } from './persistence-store.js'

/**
 * The bench's own PostgreSQL server (the test suite's helper, on 127.0.0.1 and a free port), made
 * durable as a production server is (`fsync`, `synchronous_commit` and `full_page_writes` on: the
 * test server turns them off), so a commit costs what it costs the JSONL store's fdatasync.
 */
export async function startBenchServer(dir: string): Promise<{ url: string; stop(): Promise<void> }> {
  const serverDir = join(dir, 'pg')
  mkdirSync(serverDir, { recursive: true })
  const server: PostgresServer = await startPostgresServer(serverDir)
  await sql(server.url, [
    'ALTER SYSTEM SET fsync = on',
    'ALTER SYSTEM SET synchronous_commit = on',
    'ALTER SYSTEM SET full_page_writes = on',
    'SELECT pg_reload_conf()',
    'CREATE DATABASE dsh_bench',
  ])
  const at = new URL(server.url)
  at.pathname = '/dsh_bench'
  return { url: at.toString(), stop: () => stopPostgresServer(server.dataDir) }
}

/** Runs statements in order on one connection. */
export async function sql(url: string, statements: readonly string[]): Promise<void> {
  const client = new pg.Client(url)
  await client.connect()
  try {
    for (const statement of statements) await client.query(statement)
  } finally {
    await client.end()
  }
}

/** A store on the PostgreSQL backend in this process, as the app plugs it. */
export type PgHost = BenchStore<PostgresPersistence>

export async function startPgHost(url: string): Promise<PgHost> {
  const host = await startBenchStore(
    (ctx) => ctx.plugin(postgresPersistencePlugin, { url }),
    PostgresPersistence,
  )
  await host.persistence.ready
  return host
}

/**
 * A session of about `mb` MB of standalone notes (1.8 KB each, one of 200 KB every 500), as the
 * rewind bench makes it, written as the JSONL file `<dir>/<id>.jsonl`. Resolves its event count.
 */
export function writeNotesSession(dir: string, id: string, mb: number): number {
  const chunks: string[] = [header(id, '2024-01-01T00:00:00.000Z')]
  let size = 0
  let seq = 0
  while (size < mb * 1e6) {
    seq++
    const text = `${seq}:`.padEnd(seq % 500 === 0 ? 200_000 : 1800, 'abcdefghij')
    const line = `${JSON.stringify({ seq, type: 'context/note', time: '2024-01-01T00:00:01.000Z', data: { text } })}\n`
    chunks.push(line)
    size += line.length
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  writeFileSync(join(dir, `${id}.jsonl`), chunks.join(''), { mode: 0o600 })
  return seq
}

/** Copies the JSONL store `dir` into the database (`dsh-acp store copy`). */
export async function copyInto(dir: string, url: string): Promise<void> {
  const from = await JsonlCopyStore.open(dir, 'from')
  const to = await PgCopyStore.open(url)
  try {
    const outcome = await copyStores(from, to, () => {})
    if (outcome.problems.length > 0) throw new Error(outcome.problems.join('; '))
  } finally {
    await to.close()
    await from.close()
  }
}

/** A fresh stored copy `to` of the database session `from` (rows copied by SQL, not timed). */
export async function cloneSession(url: string, from: string, to: string): Promise<void> {
  await sql(url, [
    `INSERT INTO dsh_sessions (id, header, cwd, created_at, updated_at, title, archived, cost, last_seq)
       SELECT '${to}', replace(header::text, '"id":"${from}"', '"id":"${to}"')::json, cwd, created_at,
         updated_at, title, archived, cost, last_seq FROM dsh_sessions WHERE id = '${from}'`,
    `INSERT INTO dsh_events (session_id, seq, body) SELECT '${to}', seq, body FROM dsh_events WHERE session_id = '${from}'`,
  ])
}

/** `count` listed sessions, made by SQL (an empty log each): the listing's worst case is their number. */
export async function manySessions(url: string, count: number): Promise<void> {
  await sql(url, [
    `INSERT INTO dsh_sessions (id, header, cwd, created_at, updated_at, title, last_seq)
       SELECT 'L' || lpad(i::text, 6, '0'),
         json_build_object('version', 1, 'id', 'L' || lpad(i::text, 6, '0'), 'createdAt', t, 'cwd', '/bench/' || (i % 20))::text::json,
         '/bench/' || (i % 20), t, t, 'session ' || i, 0
       FROM generate_series(1, ${count}) AS i,
         LATERAL (SELECT to_char(timestamp '2024-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS t) AS at`,
    'ANALYZE dsh_sessions',
  ])
}
