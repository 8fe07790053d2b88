import pg from 'pg'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { MIGRATIONS, postgresPersistencePlugin } from '../../src/persistence/postgres/index.js'
import { SessionErrorCode } from '../../src/session/errors.js'
import type { SessionId } from '../../src/session/ids.js'
import type { SessionEvent } from '../../src/session/log/events.js'
import { type BackendHost, type BackendStore, postgresBackend, startHost } from '../support/backends.js'
import { sharedPostgres } from '../support/postgres/test-database.js'
import { appendTurn } from '../support/session-store.js'

// Several hosts on one database (each a store of its own, as two `dsh-acp` processes on two
// machines would be): the database orders their appends, a stale writer fails cleanly, the pen is
// the database's lock.

const wire = (events: readonly SessionEvent[]) => events.map((e) => JSON.stringify(e))

async function storedEvents(url: string, id: SessionId): Promise<{ seq: number; body: string }[]> {
  const client = new pg.Client(url)
  await client.connect()
  try {
    const { rows } = await client.query<{ seq: number; body: string }>(
      'SELECT seq, body::text AS body FROM dsh_events WHERE session_id = $1 ORDER BY seq',
      [id],
    )
    return rows
  } finally {
    await client.end()
  }
}

describe('PostgreSQL: several hosts on one database', () => {
  const hosts: BackendHost[] = []
  let store: BackendStore
  const host = async () => {
    const started = await store.start()
    hosts.push(started)
    return started
  }
  /** A host that does not follow other hosts' writes live: its view stays as it loaded it. */
  const quietHost = async () => {
    const url = await urlOf(store)
    const started = await startHost((ctx) =>
      ctx.plugin(postgresPersistencePlugin, { url, poolSize: 4, live: false }),
    )
    hosts.push(started)
    return started
  }
  beforeAll(() => sharedPostgres(), 120_000)
  afterEach(async () => {
    for (const h of hosts.splice(0)) await h.stop().catch(() => {})
  })

  it('a stale writer fails with SESSION_CHANGED and writes nothing; the other host’s events stand', async () => {
    store = await postgresBackend.fresh()
    const a = await host()
    const b = await quietHost()
    const made = await a.sessions.createDurable()
    appendTurn(made, 'first')
    await a.sessions.flush(made.id)
    const onB = await b.sessions.load(made.id)
    appendTurn(made, 'a wins')
    await a.sessions.flush(made.id)
    // A's pen is let go just after its flush (until then B would be told SESSION_LOCKED).
    await a.persistence.idle()
    const acknowledged = wire(made.events())
    appendTurn(onB, 'b is stale')
    await expect(b.sessions.flush(onB.id)).rejects.toMatchObject({ code: SessionErrorCode.SESSION_CHANGED })
    const c = await host()
    expect(wire((await c.sessions.load(made.id)).events())).toEqual(acknowledged)
  })

  it('while one host holds the pen, another host’s append fails with SESSION_LOCKED; none interleave', async () => {
    store = await postgresBackend.fresh()
    const a = await host()
    const b = await quietHost()
    const made = await a.sessions.createDurable()
    await a.sessions.close(made.id)
    const onA = await a.sessions.load(made.id)
    const onB = await b.sessions.load(made.id)
    const pen = a.sessions.takePen(onA)
    appendTurn(onA, 'a holds the pen')
    await a.sessions.flush(onA.id)
    appendTurn(onB, 'b has no pen')
    await expect(b.sessions.flush(onB.id)).rejects.toMatchObject({ code: SessionErrorCode.SESSION_LOCKED })
    appendTurn(onA, 'a again')
    await pen.release()
    const c = await host()
    expect(wire((await c.sessions.load(made.id)).events())).toEqual(wire(onA.events()))
  })

  it('racing appends from two hosts: exactly one batch is committed, contiguous, never interleaved', async () => {
    store = await postgresBackend.fresh()
    const a = await quietHost()
    const b = await quietHost()
    for (let round = 0; round < 5; round++) {
      const made = await a.sessions.createDurable()
      await a.sessions.close(made.id)
      const onA = await a.sessions.load(made.id)
      const onB = await b.sessions.load(made.id)
      appendTurn(onA, `a${round}`)
      appendTurn(onB, `b${round}`)
      const [ra, rb] = await Promise.allSettled([a.sessions.flush(onA.id), b.sessions.flush(onB.id)])
      const won = [ra, rb].filter((r) => r.status === 'fulfilled')
      expect(won).toHaveLength(1)
      const lost = [ra, rb].find((r) => r.status === 'rejected') as PromiseRejectedResult
      expect([SessionErrorCode.SESSION_LOCKED, SessionErrorCode.SESSION_CHANGED]).toContain(lost.reason.code)
      const winner = ra.status === 'fulfilled' ? onA : onB
      const rows = await storedEvents(await urlOf(store), made.id)
      expect(rows.map((r) => r.seq)).toEqual(winner.events().map((e) => e.seq))
      expect(rows.map((r) => r.body)).toEqual(wire(winner.events()))
      await a.sessions.close(made.id).catch(() => {})
      await b.sessions.close(made.id).catch(() => {})
    }
  })

  it('a connection lost while holding the pen fails the turn clearly; nothing acknowledged is lost; the lock goes with it', async () => {
    store = await postgresBackend.fresh()
    const a = await host()
    const made = await a.sessions.createDurable()
    appendTurn(made, 'acknowledged')
    await a.sessions.flush(made.id)
    const acknowledged = wire(made.events())
    const pen = a.sessions.takePen(made)
    made.append({ type: 'turn/start', data: { turn: 2 } })
    await a.sessions.flush(made.id)
    // The pen's connection dies (a network cut, a restarted server).
    const admin = new pg.Client(await urlOf(store))
    await admin.connect()
    try {
      const { rows } = await admin.query<{ killed: boolean }>(
        // This session's pen only: other test files share this database (and hold pens of their own).
        `SELECT pg_terminate_backend(l.pid) AS killed FROM pg_locks l WHERE l.locktype = 'advisory' AND l.pid <> pg_backend_pid()
           AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended('dsh-acp pen ' || $1, 0)`,
        [made.id],
      )
      expect(rows.map((r) => r.killed)).toEqual([true])
    } finally {
      await admin.end()
    }
    made.append({ type: 'user/message', data: { turn: 2, content: [{ type: 'text', text: 'lost' }] } })
    await expect(a.sessions.flush(made.id)).rejects.toMatchObject({
      code: SessionErrorCode.PERSISTENCE_FAILED,
    })
    await pen.release().catch(() => {})
    // Another host takes the session over at once: the database let the lock go with the connection.
    const b = await host()
    const loaded = await b.sessions.load(made.id)
    expect(wire(loaded.events()).slice(0, acknowledged.length + 1)).toEqual(
      wire(made.events()).slice(0, acknowledged.length + 1),
    )
    appendTurn(loaded, 'taken over')
    await b.sessions.flush(loaded.id)
    expect(loaded.events().at(-1)?.type).toBe('turn/end')
  })

  it('a statement timeout fails the write clearly; what was acknowledged stays, and the session loads again', async () => {
    store = await postgresBackend.fresh()
    const url = await urlOf(store)
    const a = await startHost((ctx) =>
      ctx.plugin(postgresPersistencePlugin, { url, statementTimeoutMs: 300, connectAttempts: 1 }),
    )
    hosts.push(a)
    const made = await a.sessions.createDurable()
    appendTurn(made, 'acknowledged')
    await a.sessions.flush(made.id)
    const acknowledged = wire(made.events())
    // Another client holds the session's row: the next append's version update waits, then times out.
    const blocker = new pg.Client(url)
    await blocker.connect()
    try {
      await blocker.query('BEGIN')
      await blocker.query('SELECT 1 FROM dsh_sessions WHERE id = $1 FOR UPDATE', [made.id])
      appendTurn(made, 'times out')
      const failure = await a.sessions.flush(made.id).then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(failure).toMatchObject({
        code: SessionErrorCode.PERSISTENCE_FAILED,
        data: { sqlState: '57014' },
      })
      expect((failure as Error).message).toMatch(/statement timeout/)
    } finally {
      await blocker.query('ROLLBACK')
      await blocker.end()
    }
    await a.sessions.close(made.id).catch(() => {})
    const again = await a.sessions.load(made.id)
    expect(wire(again.events())).toEqual(acknowledged)
    appendTurn(again, 'resumed')
    await a.sessions.flush(again.id)
  })

  it('hosts starting together apply each migration once; a schema newer than this build is refused', async () => {
    store = await postgresBackend.fresh()
    await Promise.all([host(), host(), host()])
    const url = await urlOf(store)
    const admin = new pg.Client(url)
    await admin.connect()
    try {
      const { rows } = await admin.query<{ version: number }>(
        'SELECT version FROM dsh_schema_migrations ORDER BY version',
      )
      expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version))
      await admin.query("INSERT INTO dsh_schema_migrations (version, name) VALUES (9999, 'from the future')")
    } finally {
      await admin.end()
    }
    await expect(host()).rejects.toThrow(/newer than this dsh-acp knows/)
  })
})

async function urlOf(store: BackendStore): Promise<string> {
  const url = (store as BackendStore & { url?: string }).url
  if (url === undefined) throw new Error('not a PostgreSQL store')
  return url
}
