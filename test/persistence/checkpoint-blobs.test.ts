import { randomBytes } from 'node:crypto'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { JsonlPersistence, persistencePlugin } from '../../src/persistence/index.js'
import { PostgresPersistence, postgresPersistencePlugin } from '../../src/persistence/postgres/index.js'
import type { Session } from '../../src/session/session.js'
import type { SessionPersistence } from '../../src/session/store/persistence-port.js'
import { type BackendHost, startHost } from '../support/backends.js'
import { freshSchema, sharedPostgres } from '../support/postgres/test-database.js'
import { tempDir } from '../support/session-store.js'

// Checkpoint blobs on both backends: a blob put before the event naming it reads back from another
// host; deleting the last session naming it collects it; a blob another session names stays.

interface Blobs {
  put(bytes: Uint8Array): Promise<`sha256:${string}`>
  get(name: `sha256:${string}`): Promise<Buffer | undefined>
}

function blobsOf(persistence: SessionPersistence): Blobs {
  if (persistence instanceof JsonlPersistence || persistence instanceof PostgresPersistence)
    return persistence.blobs
  throw new Error('no blobs on this backend')
}

const cleanups: (() => void)[] = []
const BACKENDS = [
  {
    name: 'jsonl',
    async store() {
      const { dir, cleanup } = tempDir('dsh-blobs-')
      cleanups.push(cleanup)
      return () => startHost((ctx) => ctx.plugin(persistencePlugin, { dir, blobGraceMs: 0 }))
    },
  },
  {
    name: 'postgres',
    async store() {
      const url = await freshSchema()
      return () =>
        startHost((ctx) => ctx.plugin(postgresPersistencePlugin, { url, poolSize: 4, blobGraceMs: 0 }))
    },
  },
]

/** A turn whose tool changed a file whose old content (`name`) is in the blobs. */
function checkpointTurn(session: Session, name: string): void {
  const turn = session.lastTurn + 1
  session.append({ type: 'turn/start', data: { turn } })
  session.append({ type: 'user/message', data: { turn, content: [{ type: 'text', text: 'edit it' }] } })
  session.append({
    type: 'checkpoint:file',
    data: { turn, callId: `c${turn}`, path: '/work/big.bin', before: name, after: 'absent' },
  })
  session.append({ type: 'turn/end', data: { turn, reason: 'completed' } })
}

describe.each(BACKENDS)('checkpoint blobs on the $name backend', (backend) => {
  const hosts: BackendHost[] = []
  const start = async (make: () => Promise<BackendHost>) => {
    const host = await make()
    hosts.push(host)
    return host
  }
  beforeAll(() => sharedPostgres(), 120_000)
  afterEach(async () => {
    for (const h of hosts.splice(0)) await h.stop().catch(() => {})
    for (const c of cleanups.splice(0)) c()
  })

  it('reads a blob back in another host, and collects it once no session names it', async () => {
    const make = await backend.store()
    const a = await start(make)
    const bytes = randomBytes(64 << 10)
    const name = await blobsOf(a.persistence).put(bytes)
    const one = await a.sessions.createDurable()
    checkpointTurn(one, name)
    await a.sessions.flush(one.id)
    const two = await a.sessions.createDurable()
    checkpointTurn(two, name)
    await a.sessions.flush(two.id)
    const other = await blobsOf(a.persistence).put(randomBytes(4096))
    await a.stop()

    const b = await start(make)
    expect((await blobsOf(b.persistence).get(name))?.equals(bytes)).toBe(true)
    // Forks and reloads name the same blob: still one.
    const loaded = await b.sessions.load(one.id)
    expect(loaded.events().some((e) => e.type === 'checkpoint:file')).toBe(true)
    await b.sessions.close(one.id)
    await b.sessions.delete(one.id)
    await b.persistence.idle()
    expect((await blobsOf(b.persistence).get(name))?.equals(bytes)).toBe(true)
    expect(await blobsOf(b.persistence).get(other)).toBeUndefined()
    await b.sessions.delete(two.id)
    await b.persistence.idle()
    expect(await blobsOf(b.persistence).get(name)).toBeUndefined()
  })

  it('keeps a blob a fork child still names after its parent is deleted', async () => {
    const make = await backend.store()
    const a = await start(make)
    const bytes = randomBytes(8192)
    const name = await blobsOf(a.persistence).put(bytes)
    const parent = await a.sessions.createDurable()
    checkpointTurn(parent, name)
    await a.sessions.flush(parent.id)
    const child = await a.sessions.forkDurable(parent.id, parent.lastSeq)
    await a.sessions.close(child.id)
    await a.sessions.close(parent.id)
    await a.sessions.delete(parent.id)
    await a.persistence.idle()
    expect((await blobsOf(a.persistence).get(name))?.equals(bytes)).toBe(true)
    await a.sessions.delete(child.id)
    await a.persistence.idle()
    expect(await blobsOf(a.persistence).get(name)).toBeUndefined()
  })

  it('keeps a blob the archived branch of a rewind names, until the branch goes too', async () => {
    const make = await backend.store()
    const a = await start(make)
    const bytes = randomBytes(8192)
    const name = await blobsOf(a.persistence).put(bytes)
    const session = await a.sessions.createDurable()
    checkpointTurn(
      session,
      name.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
    )
    const kept = session.lastSeq
    checkpointTurn(session, name)
    await a.sessions.flush(session.id)
    // The event naming the blob goes to the branch (rows moved, on PostgreSQL).
    const { session: rewound, branch } = await a.sessions.rewind(session, kept)
    await a.sessions.flush()
    await a.sessions.close(rewound.id)
    await a.sessions.delete(rewound.id)
    await a.persistence.idle()
    expect((await blobsOf(a.persistence).get(name))?.equals(bytes)).toBe(true)
    await a.sessions.delete(branch.sessionId)
    await a.persistence.idle()
    expect(await blobsOf(a.persistence).get(name)).toBeUndefined()
  })
})
