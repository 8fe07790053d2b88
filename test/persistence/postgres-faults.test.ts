import pg from 'pg'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { postgresPersistencePlugin } from '../../src/persistence/postgres/index.js'
import { SessionErrorCode } from '../../src/session/errors.js'
import type { SessionEvent } from '../../src/session/log/events.js'
import type { Session } from '../../src/session/session.js'
import { type BackendHost, startHost } from '../support/backends.js'
import { TcpProxy } from '../support/postgres/tcp-proxy.js'
import { freshDatabase, freshSchema, sharedPostgres } from '../support/postgres/test-database.js'
import { appendTurn } from '../support/session-store.js'

// Faults between a host and its database, mid-turn: the connections cut by a TCP proxy on
// loopback, the server away for a while (every connection cut, new ones refused), every backend
// terminated by the server. Each fails the turn with a clear error, loses nothing acknowledged, and
// the host writes again once the database is back (the session loaded again).

const wire = (events: readonly SessionEvent[]) => events.map((e) => JSON.stringify(e))

async function terminateAll(url: string): Promise<number> {
  const admin = new pg.Client(url)
  await admin.connect()
  try {
    const { rows } = await admin.query<{ n: number }>(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    )
    return rows[0]?.n ?? 0
  } finally {
    await admin.end()
  }
}

describe('PostgreSQL: faults mid-turn', () => {
  const hosts: BackendHost[] = []
  const proxies: TcpProxy[] = []
  const host = async (url: string) => {
    const started = await startHost((ctx) =>
      ctx.plugin(postgresPersistencePlugin, { url, poolSize: 4, connectAttempts: 3 }),
    )
    hosts.push(started)
    return started
  }
  const proxy = async (url: string) => {
    const started = await TcpProxy.to(url)
    proxies.push(started)
    return started
  }
  beforeAll(() => sharedPostgres(), 120_000)
  afterEach(async () => {
    for (const p of proxies.splice(0)) p.up()
    for (const h of hosts.splice(0)) await h.stop().catch(() => {})
    for (const p of proxies.splice(0)) await p.close()
  })

  /** A session with one acknowledged turn, and a second under a pen held, committed: mid-turn. */
  async function midTurn(a: BackendHost) {
    const made = await a.sessions.createDurable()
    appendTurn(made, 'acknowledged')
    await a.sessions.flush(made.id)
    const pen = await a.sessions.acquirePen(made)
    appendTurn(made, 'committed under the pen')
    await a.sessions.flush(made.id)
    return { made, pen, acknowledged: wire(made.events()) }
  }

  /** The fault: what the turn appends next fails clearly, and the pen's release reports it too. */
  async function failsClearly(a: BackendHost, made: Session, pen: { release(): Promise<void> }) {
    appendTurn(made, 'written while the database is away')
    const failure = await a.sessions.flush(made.id).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(failure).toMatchObject({ code: SessionErrorCode.PERSISTENCE_FAILED })
    expect((failure as Error).message).toMatch(new RegExp(`session ${made.id}: .*(connection|terminat)`, 'i'))
    await pen.release().catch(() => {})
  }

  /** The database is back: the session, loaded again, holds exactly what was acknowledged and takes writes. */
  async function resumes(a: BackendHost, made: Session, acknowledged: string[], url: string) {
    expect(a.sessions.letGoIfChanged(made.id)).toBe(true)
    const again = await a.sessions.open(made.id)
    expect(wire(again.events())).toEqual(acknowledged)
    const pen = await a.sessions.acquirePen(again)
    appendTurn(again, 'after the fault')
    await pen.release()
    const other = await host(url)
    expect(wire((await other.sessions.load(made.id)).events())).toEqual(wire(again.events()))
  }

  it('the connections cut by a TCP proxy', async () => {
    const url = await freshSchema()
    const cutter = await proxy(url)
    const a = await host(cutter.through(url))
    const { made, pen, acknowledged } = await midTurn(a)
    cutter.cut()
    await failsClearly(a, made, pen)
    await resumes(a, made, acknowledged, url)
  })

  it('the database away for a while (every connection cut, new ones refused), then back', async () => {
    const url = await freshSchema()
    const link = await proxy(url)
    const a = await host(link.through(url))
    const { made, pen, acknowledged } = await midTurn(a)
    link.down()
    await failsClearly(a, made, pen)
    // While it is away, reading fails clearly too (after the connection retries), and nothing changes.
    expect(a.sessions.letGoIfChanged(made.id)).toBe(true)
    await expect(a.sessions.open(made.id)).rejects.toMatchObject({
      code: SessionErrorCode.PERSISTENCE_FAILED,
    })
    link.up()
    const again = await a.sessions.open(made.id)
    expect(wire(again.events())).toEqual(acknowledged)
    const pen2 = await a.sessions.acquirePen(again)
    appendTurn(again, 'after the fault')
    await pen2.release()
  })

  it('every backend terminated by the server (as a restart does)', async () => {
    // A database of its own: the other files' connections are not this test's to terminate.
    const url = await freshDatabase()
    const a = await host(url)
    const { made, pen, acknowledged } = await midTurn(a)
    expect(await terminateAll(url)).toBeGreaterThan(0)
    await failsClearly(a, made, pen)
    await resumes(a, made, acknowledged, url)
  })

  it('live updates resume after the listening connection was cut: what was written meanwhile arrives', async () => {
    const url = await freshSchema()
    const link = await proxy(url)
    const a = await host(url)
    const b = await host(link.through(url))
    const onA = await a.sessions.createDurable()
    const onB = await b.sessions.load(onA.id)
    let reached: (() => void) | undefined
    b.sessions.onForeignWrites({
      caughtUp: () => {
        if (onB.lastSeq === onA.lastSeq) reached?.()
        return true
      },
      changed: () => {},
    })
    link.down()
    appendTurn(onA, 'while B is cut off')
    await a.sessions.flush(onA.id)
    const arrived = new Promise<void>((resolve) => {
      reached = resolve
    })
    link.up()
    await arrived
    expect(wire(onB.events())).toEqual(wire(onA.events()))
  })
})
