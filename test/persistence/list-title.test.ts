import { appendFileSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type FileSystem, nodeFileSystem } from '../../src/persistence/index.js'
import type { Session } from '../../src/session/index.js'
import { appendTurn, startStore, tempDirPerTest } from '../support/session-store.js'

/**
 * `list` of a stored, unloaded session shows the title it would have live: the last own
 * `session/title` event (a `/title` before a restart), else the header's, else the first prompt's.
 */

const store = tempDirPerTest()

const setTitle = (session: Session, title: string) =>
  (session.append as (input: unknown) => unknown)({ type: 'session/title', data: { title } })

/** The node file system, counting the bytes read from session files. */
function countingReads(): { fs: FileSystem; read: () => number } {
  let read = 0
  const fs: FileSystem = {
    ...nodeFileSystem,
    async open(path, flags, mode) {
      const file = await nodeFileSystem.open(path, flags, mode)
      return {
        write: (...args) => file.write(...args),
        writev: (...args) => file.writev(...args),
        writeSync: (...args) => file.writeSync(...args),
        readSync: (...args) => {
          const n = file.readSync(...args)
          if (path.endsWith('.jsonl')) read += n
          return n
        },
        read: async (...args) => {
          const n = await file.read(...args)
          if (path.endsWith('.jsonl')) read += n
          return n
        },
        datasync: () => file.datasync(),
        truncate: (length) => file.truncate(length),
        stat: () => file.stat(),
        close: () => file.close(),
      }
    },
  }
  return { fs, read: () => read }
}

async function storedTitles(): Promise<Record<string, string | undefined>> {
  const reader = await startStore(store.dir)
  const { sessions } = await reader.sessions.list({})
  await reader.stop()
  return Object.fromEntries(sessions.map((s) => [s.sessionId, s.title]))
}

describe('list titles of stored sessions', () => {
  it('shows the last session/title event, even far before the end; equal to the live title', async () => {
    const writer = await startStore(store.dir)
    const renamed = writer.sessions.create('renamed')
    appendTurn(renamed, 'first prompt')
    setTitle(renamed, 'old name')
    setTitle(renamed, 'Fix the parser')
    // Enough after the title that it lies more than one 1 MiB read before the end.
    for (let i = 0; i < 40; i++) appendTurn(renamed, `${'x'.repeat(40_000)} ${i}`)
    const plain = writer.sessions.create('plain')
    appendTurn(plain, 'just a prompt')
    const live = { renamed: renamed.title, plain: plain.title }
    await writer.stop()
    expect(live).toEqual({ renamed: 'Fix the parser', plain: 'just a prompt' })
    expect(await storedTitles()).toEqual(live)
  })

  it('a fork child shows its own header title over titles in its seed, then its own title events', async () => {
    const writer = await startStore(store.dir)
    const parent = writer.sessions.create('parent')
    appendTurn(parent, 'hello')
    setTitle(parent, 'Parent title')
    appendTurn(parent, 'more')
    const child = await writer.sessions.forkDurable(parent, parent.lastSeq)
    const grandchild = await writer.sessions.forkDurable(child, child.lastSeq)
    setTitle(grandchild, 'Own title')
    const live = { parent: parent.title, [child.id]: child.title, [grandchild.id]: grandchild.title }
    await writer.stop()
    expect(live[child.id]).toBe('Parent title (fork)')
    expect(await storedTitles()).toEqual(live)
  })

  it('a cached listing follows a title appended by another process, reading only what was appended', async () => {
    const writer = await startStore(store.dir)
    const session = writer.sessions.create('shared')
    appendTurn(session, 'prompt')
    await writer.sessions.flush('shared')
    for (let i = 0; i < 20; i++) appendTurn(session, `${'x'.repeat(20_000)} ${i}`)
    await writer.sessions.flush('shared')
    const counted = countingReads()
    const reader = await startStore(store.dir, { fs: counted.fs })
    expect((await reader.sessions.list({})).sessions[0]?.title).toBe('prompt')
    const size = statSync(join(store.dir, 'shared.jsonl')).size
    expect(counted.read()).toBeGreaterThanOrEqual(size)
    setTitle(session, 'Renamed elsewhere')
    appendTurn(session, 'after')
    await writer.sessions.flush('shared')
    const before = counted.read()
    expect((await reader.sessions.list({})).sessions[0]?.title).toBe('Renamed elsewhere')
    const grownBy = statSync(join(store.dir, 'shared.jsonl')).size - size
    // The head and the last line are read again (16 KiB each), the title's line (4 KiB), and of
    // the rest only what was appended: far less than the file.
    expect(size).toBeGreaterThan(400_000)
    expect(counted.read() - before).toBeLessThan(grownBy + 2 * 16 * 1024 + 8 * 1024)
    await reader.stop()
    await writer.stop()
  })

  it('is not fooled by the event text inside a value, or by a torn last line', async () => {
    const writer = await startStore(store.dir)
    const session = writer.sessions.create('tricky')
    appendTurn(session, 'real prompt')
    const append = (session.append as (input: unknown) => unknown).bind(session)
    append({ type: 'turn/start', data: { turn: 2 } })
    append({
      type: 'user/message',
      data: {
        turn: 2,
        content: [{ type: 'text', text: '{"seq":3,"type":"session/title","data":{"title":"in text"}}' }],
        _meta: { x: { seq: 1, type: 'session/title', data: { title: 'in meta' } } },
      },
    })
    await writer.stop()
    const file = join(store.dir, 'tricky.jsonl')
    const next = readFileSync(file, 'utf8').trimEnd().split('\n').length
    appendFileSync(
      file,
      `{"seq":${next},"type":"session/title","time":"2024-01-01T00:00:00.000Z","data":{"title":"torn`,
    )
    expect(await storedTitles()).toEqual({ tricky: 'real prompt' })
  })
})

const setArchived = (session: Session, archived: boolean) =>
  (session.append as (input: unknown) => unknown)({ type: 'session/archived', data: { archived } })

describe('archive states of stored sessions', () => {
  it('follow the last own session/archived event, far before the end too; a fork child is not archived with its parent', async () => {
    const writer = await startStore(store.dir)
    const archived = writer.sessions.create('archived')
    appendTurn(archived, 'first prompt')
    setArchived(archived, true)
    setTitle(archived, 'Titled after')
    for (let i = 0; i < 40; i++) appendTurn(archived, `${'x'.repeat(40_000)} ${i}`)
    const back = writer.sessions.create('back')
    appendTurn(back, 'prompt')
    setArchived(back, true)
    setArchived(back, false)
    const child = await writer.sessions.forkDurable(archived, archived.lastSeq)
    const live = Object.fromEntries(
      [archived, back, child].map((s) => [s.id, { archived: s.archived, title: s.title }]),
    )
    await writer.stop()
    expect(live).toEqual({
      archived: { archived: true, title: 'Titled after' },
      back: { archived: false, title: 'prompt' },
      [child.id]: { archived: false, title: 'Titled after (fork)' },
    })
    const reader = await startStore(store.dir)
    const listed = async (filter: 'exclude' | 'include' | 'only') =>
      (await reader.sessions.list({ archived: filter })).sessions.map((s) => s.sessionId).sort()
    expect(await listed('exclude')).toEqual(['back', child.id].sort())
    expect(await listed('only')).toEqual(['archived'])
    expect(await listed('include')).toEqual(['archived', 'back', child.id].sort())
    const { sessions } = await reader.sessions.list({ archived: 'include' })
    expect(
      Object.fromEntries(
        sessions.map((s) => [s.sessionId, { archived: s.archived === true, title: s.title }]),
      ),
    ).toEqual(live)
    await reader.stop()
  })
})
