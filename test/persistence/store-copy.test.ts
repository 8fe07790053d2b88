import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { CopyStore } from '../../src/persistence/copy/copy-store.js'
import { copyStores } from '../../src/persistence/copy/copy-stores.js'
import { JsonlCopyStore } from '../../src/persistence/copy/jsonl-copy-store.js'
import { PgCopyStore } from '../../src/persistence/copy/pg-copy-store.js'
import { persistencePlugin } from '../../src/persistence/index.js'
import { postgresPersistencePlugin } from '../../src/persistence/postgres/index.js'
import { runStoreCommand } from '../../src/process/store/store-command.js'
import type { SessionSummary } from '../../src/session/header.js'
import { type BackendHost, startHost } from '../support/backends.js'
import { freshSchema, sharedPostgres } from '../support/postgres/test-database.js'
import { appendTurn, tempDir } from '../support/session-store.js'
import { fillSampleStore, storeFiles } from '../support/store-copy/sample-store.js'

// `dsh-acp store copy`: a JSONL store with priced turns, a title, a checkpoint blob, a fork, a
// rewind and an archived session goes into PostgreSQL and back out byte-identical.

const cleanups: (() => void)[] = []
const hosts: BackendHost[] = []
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => {})
  for (const c of cleanups.splice(0)) c()
})
beforeAll(() => sharedPostgres(), 120_000)

function dir(): string {
  const made = tempDir('dsh-copy-')
  cleanups.push(made.cleanup)
  return made.dir
}

async function run(...args: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await runStoreCommand(args, { out: (t) => out.push(t), err: (t) => err.push(t) })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

async function listed(start: () => Promise<BackendHost>): Promise<Omit<SessionSummary, 'live'>[]> {
  const host = await start()
  hosts.push(host)
  const page = await host.sessions.list({ archived: 'include', limit: 100 })
  return page.sessions.map(({ live: _, ...summary }) => summary)
}

async function query<R extends pg.QueryResultRow>(url: string, sql: string): Promise<R[]> {
  const client = new pg.Client(url)
  await client.connect()
  try {
    return (await client.query<R>(sql)).rows
  } finally {
    await client.end()
  }
}

describe('dsh-acp store copy', () => {
  it('JSONL -> PostgreSQL -> JSONL gives the same files; the listing, references and blobs come along', async () => {
    const source = dir()
    const { main, branch, child } = await fillSampleStore(source)
    const url = await freshSchema()
    const there = await run('copy', source, url)
    expect(there.err).toBe('')
    expect(there.code).toBe(0)
    expect(there.out.match(/^copied .* verified$/gm)).toHaveLength(4)
    expect(there.out).toContain('4 copied (')
    // The database lists what the directory lists: titles, archive state, costs, lineage.
    const fromDir = await listed(() => startHost((ctx) => ctx.plugin(persistencePlugin, { dir: source })))
    const fromDb = await listed(() => startHost((ctx) => ctx.plugin(postgresPersistencePlugin, { url })))
    expect(fromDb).toEqual(fromDir)
    // Fork and rewind as metadata: the child and the branch reference main's rows.
    const refs = await query<{ id: string; base_session: string | null; base_length: number }>(
      url,
      'SELECT id, base_session, base_length FROM dsh_sessions ORDER BY id',
    )
    expect(refs.find((r) => r.id === child)).toMatchObject({ base_session: main, base_length: 6 })
    expect(refs.find((r) => r.id === branch)).toMatchObject({ base_session: main, base_length: 12 })
    expect(await query(url, 'SELECT hash FROM dsh_blobs')).toHaveLength(1)

    const back = dir()
    const again = await run('copy', url, back)
    expect(again.code).toBe(0)
    expect(storeFiles(back)).toEqual(storeFiles(source))
    expect([...storeFiles(source).keys()]).toContain(`${branch}.branch.json`)
    // Run again: everything is there and verified; nothing is written.
    const twice = await run('copy', source, url)
    expect(twice.code).toBe(0)
    expect(twice.out.match(/^present .* verified$/gm)).toHaveLength(4)
    expect(twice.out).toContain('0 copied (')
  })

  it('PostgreSQL -> JSONL: what the database made (a fork, a rewind) loads the same from the files', async () => {
    const url = await freshSchema()
    const db = await startHost((ctx) => ctx.plugin(postgresPersistencePlugin, { url, poolSize: 4 }))
    hosts.push(db)
    const s = db.sessions
    const main = s.create('main')
    for (let t = 1; t <= 3; t++) appendTurn(main, `turn ${t}`)
    await s.flush(main.id)
    const child = await s.forkDurable(main, 6)
    appendTurn(child, 'child turn')
    const { session: rewound, branch } = await s.rewind(main, 12)
    appendTurn(rewound, 'after')
    await s.flush()
    const ids = ['main', child.id, branch.sessionId]
    const wire = async (host: BackendHost, id: string) =>
      (await host.sessions.load(id)).events().map((e) => JSON.stringify(e))
    const expected = await Promise.all(ids.map((id) => wire(db, id)))
    await s.closeAll()
    const target = dir()
    expect((await run('copy', url, target)).code).toBe(0)
    const files = await startHost((ctx) => ctx.plugin(persistencePlugin, { dir: target }))
    hosts.push(files)
    expect(await Promise.all(ids.map((id) => wire(files, id)))).toEqual(expected)
    await files.sessions.closeAll()
    // And into a second database: the same rows, as text.
    const second = await freshSchema()
    expect((await run('copy', target, second)).code).toBe(0)
    const rows = (at: string) =>
      query(
        at,
        'SELECT id, header::text, last_seq, title, archived, cost::text FROM dsh_sessions ORDER BY id',
      )
    expect(await rows(second)).toEqual(await rows(url))
  })

  it('resumes an interrupted copy: what was copied and verified is skipped, the rest copied', async () => {
    const source = dir()
    await fillSampleStore(source, 6)
    const url = await freshSchema()
    const from = await JsonlCopyStore.open(source, 'from')
    const to = await PgCopyStore.open(url)
    let writes = 0
    const failing: CopyStore = Object.assign(Object.create(to) as PgCopyStore, {
      write: async (...args: Parameters<CopyStore['write']>) => {
        if (++writes > 5) throw new Error('injected: the copy was interrupted')
        return to.write(...args)
      },
    })
    const first = await copyStores(from, failing, () => {})
    await to.close()
    await from.close()
    expect(first.copied).toBe(5)
    expect(first.problems).toHaveLength(5)
    const resumed = await run('copy', source, url)
    expect(resumed.code).toBe(0)
    expect(resumed.out).toContain('5 copied (')
    expect(resumed.out).toContain('5 already there')
    const back = dir()
    expect((await run('copy', url, back)).code).toBe(0)
    expect(storeFiles(back)).toEqual(storeFiles(source))
  })

  it('into a directory: a temp file a killed copy left is removed, the copy finished', async () => {
    const source = dir()
    await fillSampleStore(source)
    const url = await freshSchema()
    expect((await run('copy', source, url)).code).toBe(0)
    const target = dir()
    // What a copy killed while writing session main leaves: its temp file (its pid gone).
    const left = join(target, '.main.999999999.0123456789ab.tmp')
    writeFileSync(left, readFileSync(join(source, 'main.jsonl')).subarray(0, 100))
    const done = await run('copy', url, target)
    expect(done.code).toBe(0)
    expect(existsSync(left)).toBe(false)
    expect(storeFiles(target)).toEqual(storeFiles(source))
  })

  it('refuses a target holding a different session with the same id, and copies the rest', async () => {
    const url = await freshSchema()
    const a = dir()
    const host = await startHost((ctx) => ctx.plugin(persistencePlugin, { dir: a }))
    appendTurn(host.sessions.create('same'), 'one thing')
    appendTurn(host.sessions.create('other'), 'other thing')
    await host.stop()
    const b = dir()
    const second = await startHost((ctx) => ctx.plugin(persistencePlugin, { dir: b }))
    appendTurn(second.sessions.create('same'), 'another thing')
    await second.stop()
    expect((await run('copy', b, url)).code).toBe(0)
    const clash = await run('copy', a, url)
    expect(clash.code).toBe(1)
    expect(clash.err).toMatch(/same: .* already holds a different session with this id/)
    expect(clash.out).toContain('1 copied (')
  })

  it('store gc removes the blobs no session names, on both kinds of store', async () => {
    const source = dir()
    await fillSampleStore(source)
    const url = await freshSchema()
    expect((await run('copy', source, url)).code).toBe(0)
    await query(url, "INSERT INTO dsh_blobs (hash, bytes) VALUES (repeat('ab', 32), 'x')")
    expect((await run('gc', url)).out).toContain('0 blobs removed, 2 kept')
    expect((await run('gc', url, '--grace-ms', '0')).out).toContain('1 blobs removed, 1 kept')
    const back = dir()
    expect((await run('copy', url, back)).code).toBe(0)
    expect((await run('gc', back, '--grace-ms', '0')).out).toMatch(/^0 blobs removed \(0 bytes\), 1 kept/)
    expect((await run('gc', back, '--grace-ms', '-1')).code).toBe(2)
  })

  it('says clearly what is wrong with a store', async () => {
    const missing = await run('copy', '/nonexistent/dsh-store', dir())
    expect(missing).toMatchObject({ code: 1, err: expect.stringContaining('no such directory') })
    const unreachable = await run('copy', dir(), 'postgres://dsh@127.0.0.1:1/none')
    expect(unreachable.code).toBe(1)
    expect(unreachable.err).toMatch(/postgres 127\.0\.0\.1:1\/none: .*ECONNREFUSED|connect/)
    const same = dir()
    expect((await run('copy', same, same)).err).toContain('the same store')
    expect((await run('copy', dir())).code).toBe(2)
    expect((await run('move', 'a', 'b')).err).toContain('unknown store command')
  })
})
