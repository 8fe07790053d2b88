import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { PostgresPersistence, postgresPersistencePlugin } from '../../src/persistence/postgres/index.js'
import type { BoardNote, SessionBoard } from '../../src/session/store/persistence-port.js'
import { type BackendHost, startHost } from '../support/backends.js'
import { freshSchema, sharedPostgres, sql } from '../support/postgres/test-database.js'
import { appendTurn } from '../support/session-store.js'

// The notice board and the pen wait between hosts on one database: notes that count while their
// host's connection lives, answers where the first offered wins, and signals that wake the others.

const note = (attached: number, extra: Record<string, unknown> = {}): BoardNote => ({
  attached,
  clients: ['zed'],
  questions: [],
  outcomes: [],
  ...extra,
})

/** Resolves at the first report of `host`'s watch of `id` after which `ready` holds. */
function reported(host: BackendHost, id: string, ready: () => Promise<boolean>): Promise<void> {
  return new Promise((resolve) => {
    let stop: (() => void) | undefined
    const look = () =>
      void ready().then((yes) => {
        if (!yes || !stop) return
        stop()
        stop = undefined
        resolve()
      })
    stop = host.sessions.watchStored(id, look)
    look()
  })
}

describe('PostgreSQL: the board and the pen between hosts', () => {
  const hosts: BackendHost[] = []
  let url: string
  const host = async () => {
    const started = await startHost((ctx) =>
      ctx.plugin(postgresPersistencePlugin, { url, poolSize: 4, checkEveryMs: 60_000 }),
    )
    hosts.push(started)
    return started
  }
  const boardOf = (h: BackendHost): SessionBoard => {
    const board = h.persistence.board
    if (!board) throw new Error('no board')
    return board
  }
  const hostOf = (h: BackendHost): string => {
    if (!(h.persistence instanceof PostgresPersistence) || !h.persistence.board) throw new Error('no board')
    return h.persistence.board.host
  }
  beforeAll(() => sharedPostgres(), 120_000)
  afterEach(async () => {
    for (const h of hosts.splice(0)) await h.stop().catch(() => {})
  })

  it("a host reads the others' notes as posted (unknown fields kept), hears each post, and not its own", async () => {
    url = await freshSchema()
    const a = await host()
    const b = await host()
    const session = await a.sessions.createDurable()
    await b.sessions.load(session.id)
    const stopA = a.sessions.watchStored(session.id, () => {})
    const posted = note(2, { cancelRequest: { by: 'zed', at: 3 } })
    const heard = reported(b, session.id, async () => (await boardOf(b).read(session.id)).length === 1)
    boardOf(a).post(session.id, posted)
    await heard
    const notes = await boardOf(b).read(session.id)
    expect(notes.map((n) => n.note)).toEqual([posted])
    expect(await boardOf(a).read(session.id)).toEqual([])
    const gone = reported(b, session.id, async () => (await boardOf(b).read(session.id)).length === 0)
    boardOf(a).post(session.id, undefined)
    await gone
    stopA?.()
  })

  it('a note whose host is gone is dropped and removed', async () => {
    url = await freshSchema()
    const b = await host()
    const session = await b.sessions.createDurable()
    // A host that posted, then died: nobody holds its presence lock.
    await sql(
      url,
      `INSERT INTO dsh_board_notes (session_id, host, host_key, note) VALUES ($1, 'gone', dsh_host_key('gone'), $2)`,
      [session.id, JSON.stringify(note(1))],
    )
    expect(await boardOf(b).read(session.id)).toEqual([])
    expect((await sql(url, 'SELECT * FROM dsh_board_notes')).rows).toEqual([])
  })

  it('a host whose LISTEN connection died drops out, and posts its notes again once back', async () => {
    url = await freshSchema()
    const a = await host()
    const b = await host()
    const session = await a.sessions.createDurable()
    const stopA = a.sessions.watchStored(session.id, () => {})
    const up = reported(b, session.id, async () => (await boardOf(b).read(session.id)).length === 1)
    boardOf(a).post(session.id, note(1))
    await up
    const presence = async () =>
      (
        await sql(
          url,
          `SELECT l.pid FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted
             AND l.objid::bigint = dsh_host_key($1) & 4294967295`,
          [hostOf(a)],
        )
      ).rows.map((r) => r.pid)
    const [before] = await presence()
    expect(before).toBeDefined()
    // A's presence (its LISTEN connection) ends, as when its host is cut off; the note goes with it.
    await sql(url, 'SELECT pg_terminate_backend($1)', [before])
    await sql(url, 'DELETE FROM dsh_board_notes WHERE NOT dsh_host_alive(host_key)')
    // A reconnects (backoff from 100 ms), takes its presence again and writes its note again.
    await vi.waitFor(
      async () => {
        const now = await presence()
        expect(now).toHaveLength(1)
        expect(now[0]).not.toBe(before)
        expect((await boardOf(b).read(session.id)).map((n) => n.note)).toEqual([note(1)])
      },
      { timeout: 20_000, interval: 50 },
    )
    stopA?.()
  })

  it('the first answer offered wins across hosts; the asker takes it once; a late offer loses', async () => {
    url = await freshSchema()
    const a = await host()
    const b = await host()
    const c = await host()
    const session = await a.sessions.createDurable()
    const offers = await Promise.all([
      boardOf(b).offer(session.id, 'q-1', { result: { outcome: 'b' }, by: 'b' }),
      boardOf(c).offer(session.id, 'q-1', { result: { outcome: 'c' }, by: 'c' }),
    ])
    expect(offers.filter(Boolean)).toHaveLength(1)
    const winner = offers[0] ? 'b' : 'c'
    expect(await boardOf(a).answers(session.id, ['q-1', 'q-2'])).toEqual([
      { question: 'q-1', answer: { result: { outcome: winner }, by: winner } },
    ])
    expect(await boardOf(a).answers(session.id, ['q-1'])).toEqual([])
    expect(await boardOf(b).offer(session.id, 'q-1', { result: { outcome: 'late' } })).toBe(false)
  })

  it("a prompt's pen on host B waits while A holds it, and is B's once A lets it go", async () => {
    url = await freshSchema()
    const a = await host()
    const b = await host()
    const onA = await a.sessions.createDurable()
    const onB = await b.sessions.load(onA.id)
    const held = await a.sessions.acquirePen(onA)
    let waiting!: () => void
    const waited = new Promise<void>((resolve) => {
      waiting = resolve
    })
    const got = b.sessions.awaitPen(onB, new AbortController().signal, waiting)
    await waited
    appendTurn(onA, 'first')
    await held.release()
    const pen = await got
    // B's view took in what A wrote before the pen was B's.
    expect(onB.lastSeq).toBe(onA.lastSeq)
    appendTurn(onB, 'second')
    await pen.release()
    const back = await a.sessions.acquirePen(onA)
    expect(onA.lastSeq).toBe(onB.lastSeq)
    await back.release()
  })

  it('a waiting pen can be given up, and a dead holder’s pen is free once its connection ends', async () => {
    url = await freshSchema()
    const a = await host()
    const b = await host()
    const onA = await a.sessions.createDurable()
    const onB = await b.sessions.load(onA.id)
    await a.sessions.acquirePen(onA)
    const abort = new AbortController()
    let waiting!: () => void
    const waited = new Promise<void>((resolve) => {
      waiting = resolve
    })
    const given = b.sessions.awaitPen(onB, abort.signal, waiting)
    await waited
    abort.abort(new Error('taken back'))
    await expect(given).rejects.toThrow('taken back')
    const again = b.sessions.awaitPen(onB, new AbortController().signal)
    // A's host dies: the backend holding its pen ends with it.
    await sql(
      url,
      `SELECT pg_terminate_backend(pid) FROM pg_locks
       WHERE locktype = 'advisory' AND granted AND objid::bigint = hashtextextended('dsh-acp pen ' || $1, 0) & 4294967295`,
      [onA.id],
    )
    const pen = await again
    await pen.release()
  })
})
