import pg from 'pg'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { postgresPersistencePlugin } from '../../src/persistence/postgres/index.js'
import { SessionErrorCode } from '../../src/session/errors.js'
import type { SessionEvent } from '../../src/session/log/events.js'
import type { Session } from '../../src/session/session.js'
import { type BackendHost, startHost } from '../support/backends.js'
import { freshDatabase, freshSchema, sharedPostgres, sql } from '../support/postgres/test-database.js'
import { appendTurn } from '../support/session-store.js'

// Two hosts (two stores, each with its own backend) on one database: what one appends reaches the
// other's live session through LISTEN/NOTIFY, and a missed notice is caught up on.

const wire = (events: readonly SessionEvent[]) => events.map((e) => JSON.stringify(e))

/** What `host` caught up on for its live sessions, and a wait for a session's log to reach a seq. */
function follow(host: BackendHost) {
  const heard: SessionEvent[] = []
  const waiters: { session: Session; seq: number; resolve: () => void }[] = []
  const settle = () => {
    for (const w of waiters.splice(0)) {
      if (w.session.lastSeq >= w.seq) w.resolve()
      else waiters.push(w)
    }
  }
  const changed: string[] = []
  host.sessions.onForeignWrites({
    caughtUp: (_session, events) => {
      heard.push(...events)
      settle()
      return true
    },
    changed: (session) => {
      changed.push(session.id)
      settle()
    },
  })
  const reaches = (session: Session, seq: number) =>
    new Promise<void>((resolve) => {
      waiters.push({ session, seq, resolve })
      settle()
    })
  return { heard, changed, reaches }
}

describe('PostgreSQL: live updates across hosts', () => {
  const hosts: BackendHost[] = []
  const host = async (url: string, checkEveryMs = 60_000) => {
    const started = await startHost((ctx) =>
      ctx.plugin(postgresPersistencePlugin, { url, poolSize: 4, checkEveryMs }),
    )
    hosts.push(started)
    return started
  }
  beforeAll(() => sharedPostgres(), 120_000)
  afterEach(async () => {
    for (const h of hosts.splice(0)) await h.stop().catch(() => {})
  })

  it('what one host appends reaches the other host’s live session, in order, each event once', async () => {
    const url = await freshSchema()
    const a = await host(url)
    const b = await host(url)
    const onA = await a.sessions.createDurable()
    const onB = await b.sessions.load(onA.id)
    const seen = follow(b)
    for (const text of ['one', 'two', 'three']) {
      const pen = await a.sessions.acquirePen(onA)
      appendTurn(onA, text)
      await pen.release()
      await seen.reaches(onB, onA.lastSeq)
    }
    expect(wire(onB.events())).toEqual(wire(onA.events()))
    expect(wire(seen.heard)).toEqual(wire(onA.events().slice(0)))
  })

  it('a host that takes the pen after another wrote continues after what it caught up on', async () => {
    const url = await freshSchema()
    const a = await host(url)
    const b = await host(url)
    const onA = await a.sessions.createDurable()
    const onB = await b.sessions.load(onA.id)
    const penA = await a.sessions.acquirePen(onA)
    appendTurn(onA, 'a writes')
    // While A holds the pen, B is refused at once, before any work, and stays writable.
    await expect(b.sessions.acquirePen(onB)).rejects.toMatchObject({ code: SessionErrorCode.SESSION_LOCKED })
    await penA.release()
    const penB = await b.sessions.acquirePen(onB)
    expect(onB.lastSeq).toBe(onA.lastSeq)
    appendTurn(onB, 'b continues')
    await penB.release()
    const c = await host(url)
    expect(wire((await c.sessions.load(onA.id)).events())).toEqual(wire(onB.events()))
  })

  it('a notice missed (written without one) is found by the periodic check', async () => {
    const url = await freshSchema()
    const a = await host(url)
    const b = await host(url, 100)
    const onA = await a.sessions.createDurable()
    appendTurn(onA, 'acknowledged')
    await a.sessions.flush(onA.id)
    await a.sessions.close(onA.id)
    const onB = await b.sessions.load(onA.id)
    const seen = follow(b)
    // Another writer that announces nothing: the row and the version, as a host's append makes them.
    const extra = {
      seq: onB.lastSeq + 1,
      type: 'session/title',
      time: new Date().toISOString(),
      data: { title: 'quiet' },
    }
    const client = new pg.Client(url)
    await client.connect()
    try {
      await client.query('BEGIN')
      await client.query('UPDATE dsh_sessions SET last_seq = $2 WHERE id = $1', [onA.id, extra.seq])
      await client.query('INSERT INTO dsh_events (session_id, seq, body) VALUES ($1, $2, $3::json)', [
        onA.id,
        extra.seq,
        JSON.stringify(extra),
      ])
      await client.query('COMMIT')
    } finally {
      await client.end()
    }
    await seen.reaches(onB, extra.seq)
    expect(onB.title).toBe('quiet')
  })

  it('the listening connection killed: it comes back and catches up on what was written meanwhile', async () => {
    // A database of its own: the other files' connections are not this test's to terminate.
    const url = await freshDatabase()
    const a = await host(url)
    const b = await host(url)
    const onA = await a.sessions.createDurable()
    const onB = await b.sessions.load(onA.id)
    const seen = follow(b)
    appendTurn(onA, 'before')
    await a.sessions.flush(onA.id)
    await seen.reaches(onB, onA.lastSeq)
    await sql(
      url,
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'dsh-acp notices' AND datname = current_database()",
    )
    appendTurn(onA, 'while it was away')
    await a.sessions.flush(onA.id)
    await seen.reaches(onB, onA.lastSeq)
    expect(wire(onB.events())).toEqual(wire(onA.events()))
  })

  it('a rewind or removal on another host is told as a change, not taken in as appends', async () => {
    const url = await freshSchema()
    const a = await host(url)
    const b = await host(url)
    const onA = await a.sessions.createDurable()
    appendTurn(onA, 'kept')
    await a.sessions.flush(onA.id)
    await a.sessions.close(onA.id)
    const onB = await b.sessions.load(onA.id)
    const seen = follow(b)
    await a.sessions.delete(onA.id)
    await expect.poll(() => seen.changed, { timeout: 30_000 }).toEqual([onA.id])
    expect(onB.lastSeq).toBeGreaterThan(0)
  })
})
