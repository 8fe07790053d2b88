import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createSequentialIdGenerator } from '../../src/session/index.js'
import { appendTurn, startStore, tempDirPerTest } from '../support/session-store.js'

const store = tempDirPerTest()

describe('JSONL persistence across a restart', () => {
  it('gives the same logs, lineage and listing after a new context opens the directory', async () => {
    const first = await startStore(store.dir, { store: { idGenerator: createSequentialIdGenerator('s') } })
    const root = first.sessions.create(undefined, { meta: { cwd: '/proj', title: 'root' } })
    await first.sessions.flush(root.id)
    appendTurn(root, 'hello')
    appendTurn(root, 'again')
    await first.sessions.flush(root.id)
    const child = await first.sessions.forkDurable(root, 6)
    appendTurn(child, 'child turn')
    await first.sessions.flush(child.id)
    const rootLog = root.events()
    const childLog = child.events()
    expect(first.internalErrors).toEqual([])
    await first.stop()

    const second = await startStore(store.dir)
    const loadedRoot = await second.sessions.load(root.id)
    const loadedChild = await second.sessions.load(child.id)
    expect(loadedRoot.events()).toEqual(rootLog)
    expect(loadedChild.events()).toEqual(childLog)
    expect(loadedChild.header).toMatchObject({
      parentSession: root.id,
      seedLength: 6,
      cwd: '/proj',
      title: 'root (fork)',
    })
    const page = await second.sessions.list({})
    expect(page.sessions.map((s) => [s.sessionId, s.parentSession])).toEqual([
      [child.id, root.id],
      [root.id, undefined],
    ])
    const grandchild = await second.sessions.forkDurable(child.id, 12)
    expect(grandchild.events()).toEqual(childLog.slice(0, 12))
    await second.stop()

    const third = await startStore(store.dir)
    const reloaded = await third.sessions.load(grandchild.id)
    expect(reloaded.events()).toEqual(childLog.slice(0, 12))
    expect(reloaded.header.parentSession).toBe(child.id)
    await third.stop()
  })

  it('writes a header line and one JSON event per line, files 0600 in a 0700 directory', async () => {
    const dir = join(store.dir, 'nested', 'sessions')
    const s = await startStore(dir, { store: { idGenerator: createSequentialIdGenerator('f') } })
    const session = s.sessions.create(undefined, { meta: { cwd: '/p' } })
    appendTurn(session, 'x')
    await s.sessions.flush(session.id)
    const file = join(dir, `${session.id}.jsonl`)
    const lines = readFileSync(file, 'utf8').split('\n')
    expect(lines.pop()).toBe('')
    expect(JSON.parse(lines[0] as string)).toEqual({
      version: 1,
      id: session.id,
      createdAt: session.header.createdAt,
      cwd: '/p',
    })
    expect(lines.slice(1).map((l) => JSON.parse(l))).toEqual(session.events())
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    // The lock is held only while a pen is: the flush made the turn durable and let it go.
    expect(existsSync(join(dir, `${session.id}.lock`))).toBe(false)
    const pen = s.sessions.takePen(session)
    expect(
      readFileSync(join(dir, `${session.id}.lock`), 'utf8')
        .trim()
        .split(' ')[0],
    ).toBe(String(process.pid))
    await pen.release()
    expect(existsSync(join(dir, `${session.id}.lock`))).toBe(false)
    await s.stop()
  })
})
