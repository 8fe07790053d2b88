import pg from 'pg'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { SessionId } from '../../src/session/ids.js'
import type { SessionEvent } from '../../src/session/log/events.js'
import { type BackendHost, type BackendStore, postgresBackend } from '../support/backends.js'
import { sharedPostgres } from '../support/postgres/test-database.js'
import { appendTurn } from '../support/session-store.js'

// Fork and rewind as metadata on PostgreSQL: a fork child references its parent's rows, and a
// rewind hands the session's rows to its archived branch without writing them again.

const wire = (events: readonly SessionEvent[]) => events.map((e) => JSON.stringify(e))

interface StoredRow {
  base_session: string | null
  base_length: number
  last_seq: number
  own: number
}

/** Every event row as `stream:seq:ctid`: a row written (inserted or updated) since gets a new one. */
async function rowVersions(admin: pg.Client): Promise<Set<string>> {
  const { rows } = await admin.query<{ k: string }>(
    "SELECT session_id || ':' || seq || ':' || ctid::text AS k FROM dsh_events",
  )
  return new Set(rows.map((r) => r.k))
}

describe('PostgreSQL: fork and rewind are metadata', () => {
  const hosts: BackendHost[] = []
  let store: BackendStore
  let admin: pg.Client | undefined
  const host = async () => {
    const started = await store.start()
    hosts.push(started)
    return started
  }
  const connect = async () => {
    if (store.url === undefined) throw new Error('not a PostgreSQL store')
    admin = new pg.Client(store.url)
    await admin.connect()
    return admin
  }
  beforeAll(() => sharedPostgres(), 120_000)
  afterEach(async () => {
    for (const h of hosts.splice(0)) await h.stop().catch(() => {})
    await admin?.end().catch(() => {})
    admin = undefined
  })

  it('a child references its parent’s rows; a rewind hands the rows to its branch; delete materialises', async () => {
    store = await postgresBackend.fresh()
    const a = await host()
    const db = await connect()
    const row = async (id: string) =>
      (
        await db.query<StoredRow>(
          `SELECT base_session, base_length, last_seq,
             (SELECT count(*)::int FROM dsh_events e WHERE e.session_id = COALESCE(s.stream, s.id)) AS own
           FROM dsh_sessions s WHERE id = $1`,
          [id],
        )
      ).rows[0]
    const parent = await a.sessions.createDurable()
    for (let t = 1; t <= 3; t++) appendTurn(parent, `t${t}`)
    const child = await a.sessions.forkDurable(parent, 12)
    appendTurn(child, 'own')
    await a.sessions.flush()
    const before = wire(parent.events())
    const childEvents = wire(child.events())
    // The child holds only its own 6 events; its first 12 are its parent's rows.
    expect(await row(child.id)).toEqual({ base_session: parent.id, base_length: 12, last_seq: 18, own: 6 })
    const result = await a.sessions.rewind(parent, 6)
    const branchId = result.branch.sessionId
    // The branch took over the parent's 18 rows (and its archived mark joined them); the parent has
    // a new stream holding only the rewind's marker (7) and references the branch for 1..6; the
    // child references the branch, which holds the same events.
    expect(await row(branchId)).toEqual({ base_session: null, base_length: 0, last_seq: 19, own: 19 })
    expect(await row(parent.id)).toEqual({ base_session: branchId, base_length: 6, last_seq: 7, own: 1 })
    expect(await row(child.id)).toEqual({ base_session: branchId, base_length: 12, last_seq: 18, own: 6 })
    const after = wire(result.session.events())
    expect(after.slice(0, 6)).toEqual(before.slice(0, 6))
    const reader = await host()
    expect(wire((await reader.sessions.load(parent.id)).events())).toEqual(after)
    expect(wire((await reader.sessions.load(branchId)).events()).slice(0, 18)).toEqual(before)
    expect(wire((await reader.sessions.load(child.id)).events())).toEqual(childEvents)
    await reader.stop()
    hosts.pop()
    // Deleting the branch first gives the parent and the child the rows they referenced.
    await a.sessions.delete(branchId)
    expect(await row(parent.id)).toEqual({ base_session: null, base_length: 0, last_seq: 7, own: 7 })
    expect(await row(child.id)).toEqual({ base_session: null, base_length: 0, last_seq: 18, own: 18 })
    const again = await host()
    expect(wire((await again.sessions.load(parent.id)).events())).toEqual(after)
    expect(wire((await again.sessions.load(child.id)).events())).toEqual(childEvents)
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM dsh_events')
    expect(rows[0]?.n).toBe(7 + 18)
  })

  it('a rewind to the middle writes the same few rows whatever the session’s size', async () => {
    store = await postgresBackend.fresh()
    const a = await host()
    const db = await connect()
    const touched: number[] = []
    for (const turns of [4, 40]) {
      const session = await a.sessions.createDurable()
      for (let t = 1; t <= turns; t++) appendTurn(session, `turn ${t} of ${turns}`)
      // A child referencing past the cut is handed to the branch, not given copies.
      const child = await a.sessions.forkDurable(session, (turns - 1) * 6)
      await a.sessions.flush()
      const before = wire(session.events())
      const childEvents = wire(child.events())
      const versions = await rowVersions(db)
      const result = await a.sessions.rewind(session, (turns / 2) * 6)
      expect(result.removed).toBe((turns / 2) * 6)
      const now = await rowVersions(db)
      const written = [...now].filter((k) => !versions.has(k)).length
      const gone = [...versions].filter((k) => !now.has(k)).length
      touched.push(written + gone)
      const reader = await host()
      const branch = await reader.sessions.load(result.branch.sessionId as SessionId)
      expect(wire(branch.events()).slice(0, before.length)).toEqual(before)
      expect(wire((await reader.sessions.load(child.id)).events())).toEqual(childEvents)
      expect(wire((await reader.sessions.load(session.id)).events())).toEqual(wire(result.session.events()))
    }
    // The branch's archived mark (inserted, then joining the handed-over rows) and the marker: the
    // same at 24 events and at 240, where moving the removed rows would write 12 and 120.
    expect(touched[0]).toBe(touched[1])
    expect(touched[0]).toBeLessThanOrEqual(3)
  })

  it('a deleted session’s id taken again gets rows of its own, beside the branch that took its old ones', async () => {
    store = await postgresBackend.fresh()
    const a = await host()
    const first = await a.sessions.createDurable()
    for (let t = 1; t <= 2; t++) appendTurn(first, `first ${t}`)
    await a.sessions.flush()
    const history = wire(first.events())
    const { branch } = await a.sessions.rewind(first, 6)
    await a.sessions.delete(first.id)
    const again = await a.sessions.createDurable(first.id)
    appendTurn(again, 'again')
    await a.sessions.flush()
    const reader = await host()
    expect(wire((await reader.sessions.load(first.id)).events())).toEqual(wire(again.events()))
    expect(wire((await reader.sessions.load(branch.sessionId)).events()).slice(0, 12)).toEqual(history)
  })

  it('a database of schema version 3 is migrated: its sessions load, fork and rewind as before', async () => {
    store = await postgresBackend.fresh()
    const a = await host()
    const parent = await a.sessions.createDurable()
    for (let t = 1; t <= 3; t++) appendTurn(parent, `t${t}`)
    const child = await a.sessions.forkDurable(parent, 12)
    await a.sessions.flush()
    const events = wire(parent.events())
    await a.stop()
    hosts.pop()
    // Back to what version 3 made: no streams, event rows referencing their session.
    const db = await connect()
    await db.query(`
      DROP TRIGGER dsh_sessions_stream ON dsh_sessions; DROP FUNCTION dsh_sessions_stream();
      DROP SEQUENCE dsh_stream_keys; DROP TABLE dsh_retired_streams;
      ALTER TABLE dsh_sessions DROP COLUMN stream;
      ALTER TABLE dsh_events ADD FOREIGN KEY (session_id) REFERENCES dsh_sessions (id);
      DROP TABLE dsh_board_notes, dsh_board_answers;
      DROP FUNCTION dsh_host_alive(bigint), dsh_host_key(text);
      DELETE FROM dsh_schema_migrations WHERE version >= 4;`)
    const b = await host()
    const loaded = await b.sessions.load(parent.id)
    expect(wire(loaded.events())).toEqual(events)
    const { branch } = await b.sessions.rewind(loaded, 6)
    const reader = await host()
    expect(wire((await reader.sessions.load(branch.sessionId)).events()).slice(0, 18)).toEqual(events)
    expect(wire((await reader.sessions.load(parent.id)).events()).slice(0, 6)).toEqual(events.slice(0, 6))
    expect(wire((await reader.sessions.load(child.id)).events()).slice(0, 12)).toEqual(events.slice(0, 12))
  })
})
