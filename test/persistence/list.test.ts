import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createSequentialIdGenerator } from '../../src/session/index.js'
import { appendTurn, startStore, tempDirPerTest } from '../support/session-store.js'

const store = tempDirPerTest()

function steppingClock(start = Date.parse('2024-05-01T00:00:00.000Z')): () => number {
  let now = start
  return () => (now += 1000)
}

describe('list from headers', () => {
  it('lists stored sessions newest first with lineage, cwd filter and cursors matching the store', async () => {
    const writer = await startStore(store.dir, {
      store: { clock: steppingClock(), idGenerator: createSequentialIdGenerator('l') },
    })
    const a = writer.sessions.create(undefined, { meta: { cwd: '/one', title: 'A' } })
    appendTurn(a, 'a')
    const b = writer.sessions.create(undefined, { meta: { cwd: '/two' } })
    const c = await writer.sessions.forkDurable(a, 6)
    appendTurn(c, 'c')
    const expected = [c, b, a].map((s) => s.summary())
    await writer.stop()

    const reader = await startStore(store.dir)
    const all = await reader.sessions.list({})
    expect(all.sessions).toEqual(expected.map((s) => ({ ...s, live: false })))
    expect(all.sessions[0]).toMatchObject({ parentSession: a.id, seedLength: 6, title: 'A (fork)' })
    expect((await reader.sessions.list({ cwd: '/one' })).sessions.map((s) => s.sessionId)).toEqual([
      c.id,
      a.id,
    ])
    const first = await reader.sessions.list({ limit: 2 })
    expect(first.sessions.map((s) => s.sessionId)).toEqual([c.id, b.id])
    const second = await reader.sessions.list({ limit: 2, cursor: first.nextCursor as string })
    expect(second).toEqual({ sessions: [{ ...expected[2], live: false }] })
    await expect(reader.sessions.list({ cursor: 'garbage' })).rejects.toThrow(/cursor/)
    await reader.stop()
  })

  it('orders by last activity: live sessions by their current state, stored ones by their last event', async () => {
    const writer = await startStore(store.dir, { store: { clock: steppingClock() } })
    const older = writer.sessions.create('older')
    writer.sessions.create('newer')
    await writer.sessions.flush('older')
    await writer.sessions.flush('newer')
    expect((await writer.sessions.list({})).sessions.map((s) => s.sessionId)).toEqual(['newer', 'older'])
    appendTurn(older, 'again')
    expect((await writer.sessions.list({})).sessions.map((s) => s.sessionId)).toEqual(['older', 'newer'])
    await writer.sessions.flush('older')
    await writer.stop()

    const reader = await startStore(store.dir)
    const stored = (await reader.sessions.list({})).sessions
    expect(stored.map((s) => [s.sessionId, s.live])).toEqual([
      ['older', false],
      ['newer', false],
    ])
    expect(stored[0]?.updatedAt).toBe(older.updatedAt)
    await reader.stop()
  })

  it('sees what other writers did since the last call: growth, new files, deletions, torn tails', async () => {
    const reader = await startStore(store.dir)
    expect((await reader.sessions.list({})).sessions).toEqual([])
    const writer = await startStore(store.dir, { store: { clock: steppingClock() } })
    const s = writer.sessions.create('grows')
    await writer.sessions.flush(s.id)
    const listed = async () => (await reader.persistence.list({})).sessions
    expect((await listed()).map((x) => x.updatedAt)).toEqual([s.header.createdAt])
    appendTurn(s, 'more')
    await writer.sessions.flush(s.id)
    expect((await listed()).map((x) => x.updatedAt)).toEqual([s.updatedAt])
    const file = join(store.dir, 'grows.jsonl')
    writeFileSync(file, `${readFileSync(file, 'utf8')}{"seq":7,"ty`)
    expect((await listed()).map((x) => x.updatedAt)).toEqual([s.updatedAt])
    writer.sessions.create('another')
    await writer.sessions.flush('another')
    expect((await listed()).map((x) => x.sessionId).sort()).toEqual(['another', 'grows'])
    await writer.sessions.delete('another')
    expect((await listed()).map((x) => x.sessionId)).toEqual(['grows'])
    writeFileSync(join(store.dir, 'broken.jsonl'), 'not a header\n')
    expect((await listed()).map((x) => x.sessionId)).toEqual(['grows'])
    await writer.stop()
    await reader.stop()
  })

  it('shows every change another process made, and its cached summaries cannot be changed through a page', async () => {
    const reader = await startStore(store.dir)
    const writer = await startStore(store.dir, { store: { clock: steppingClock() } })
    const s = writer.sessions.create('titled')
    await writer.sessions.flush(s.id)
    const list = (options = {}) => reader.sessions.list(options)
    const first = await list()
    expect(first.sessions.map((x) => x.sessionId)).toEqual(['titled'])
    expect(Object.isFrozen(first.sessions[0])).toBe(true)
    expect(await list({ cwd: '/elsewhere' })).toEqual({ sessions: [] })
    expect(await list()).toEqual(first)

    appendTurn(s, 'gives a title')
    await writer.sessions.flush(s.id)
    const grown = await list()
    expect(grown.sessions).toEqual([
      expect.objectContaining({ title: 'gives a title', updatedAt: s.updatedAt }),
    ])

    writer.sessions.create('second')
    await writer.sessions.flush('second')
    const added = await list()
    expect(added.sessions.map((x) => x.sessionId)).toEqual(['second', 'titled'])
    await writer.sessions.delete('second')
    expect((await list()).sessions.map((x) => x.sessionId)).toEqual(['titled'])

    // A session live in the reading process is listed by its current state, never from a kept page.
    await writer.stop()
    const opened = await reader.sessions.load('titled')
    appendTurn(opened, 'live now')
    expect((await list()).sessions).toEqual([
      expect.objectContaining({ updatedAt: opened.updatedAt, live: true }),
    ])
    await reader.stop()
  })

  it('forks by copying the parent bytes, not by serializing again', async () => {
    const s = await startStore(store.dir)
    const header = { version: 1, id: 'odd', createdAt: '2024-01-01T00:00:00.000Z', cwd: '/o' }
    const events = [
      '{ "seq": 1, "type": "context/note", "time": "2024-01-01T00:00:01.000Z", "data": { "text": "one" } }',
      '{"data":{"text":"two"},"time":"2024-01-01T00:00:02.000Z","type":"context/note","seq":2}',
      '{"seq":3,"type":"context/note","time":"2024-01-01T00:00:03.000Z","data":{"text":"three"}}',
    ]
    writeFileSync(join(store.dir, 'odd.jsonl'), `${JSON.stringify(header)}\n${events.join('\n')}\n`)
    const child = await s.sessions.forkDurable('odd', 2, 'odd_child')
    child.append({ type: 'context/note', data: { text: 'mine' } })
    await s.sessions.flush(child.id)
    const lines = readFileSync(join(store.dir, 'odd_child.jsonl'), 'utf8').split('\n')
    expect(lines.slice(1, 3)).toEqual(events.slice(0, 2))
    expect(JSON.parse(lines[3] as string)).toEqual(child.at(3))
    await s.stop()
    const again = await startStore(store.dir)
    expect((await again.sessions.load('odd_child')).events()).toEqual(child.events())
    await again.stop()
  })
})
