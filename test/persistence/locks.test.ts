import { type ChildProcess, fork } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SessionErrorCode } from '../../src/session/index.js'
import { appendTurn, startStore, tempDir } from '../support/session-store.js'

const HOLDER = join(import.meta.dirname, 'fixtures', 'hold-session.mjs')

let store: ReturnType<typeof tempDir>
beforeEach(() => {
  store = tempDir()
})
afterEach(() => store.cleanup())

/** Starts a process that opens `id` in the store and holds it until killed. */
function holdInChild(id: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = fork(HOLDER, [store.dir, id], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
    child.once('message', () => resolve(child))
    child.once('exit', (code) => reject(new Error(`holder exited with ${code}`)))
  })
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGKILL')
  })
}

describe('one writer per session across processes', () => {
  it('refuses a second writer with SESSION_LOCKED and the pid, then takes over after the holder dies', async () => {
    expect(existsSync('dist/persistence/index.js'), 'run `npm run build` first').toBe(true)
    const s = await startStore(store.dir)
    const session = s.sessions.create('shared', { meta: { cwd: '/l' } })
    appendTurn(session, 'one')
    await s.sessions.close(session.id)
    await s.persistence.idle()

    const child = await holdInChild('shared')
    const locked = { code: SessionErrorCode.SESSION_LOCKED, data: { sessionId: 'shared', pid: child.pid } }
    await expect(s.sessions.load('shared')).rejects.toMatchObject(locked)
    await expect(s.sessions.forkDurable('shared')).rejects.toMatchObject(locked)
    await expect(s.sessions.delete('shared')).rejects.toMatchObject(locked)
    expect(readFileSync(join(store.dir, 'shared.lock'), 'utf8').trim().split(' ')[0]).toBe(String(child.pid))

    await killed(child)
    const loaded = await s.sessions.load('shared')
    expect(loaded.lastSeq).toBe(7)
    expect(loaded.at(7)?.data).toEqual({ text: 'held' })
    expect(readFileSync(join(store.dir, 'shared.lock'), 'utf8').trim().split(' ')[0]).toBe(
      String(process.pid),
    )
    await s.stop()
    expect(existsSync(join(store.dir, 'shared.lock'))).toBe(false)
  })

  it('takes over a lock holding a dead pid, garbage, or its own pid from an earlier life', async () => {
    const s = await startStore(store.dir)
    for (const [id, content] of [
      ['dead', '999999999\n'],
      ['garbage', 'not a pid'],
      ['mine', `${process.pid}\n`],
    ] as const) {
      const session = s.sessions.create(id)
      await s.sessions.close(session.id)
      await s.persistence.idle()
      writeFileSync(join(store.dir, `${id}.lock`), content)
      const loaded = await s.sessions.load(id)
      expect(loaded.id).toBe(id)
      expect(
        readFileSync(join(store.dir, `${id}.lock`), 'utf8')
          .trim()
          .split(' ')[0],
      ).toBe(String(process.pid))
    }
    await s.stop()
  })

  it('refuses a second context of this process while the first holds the session', async () => {
    const a = await startStore(store.dir)
    const b = await startStore(store.dir)
    a.sessions.create('twice')
    await a.sessions.flush('twice')
    await expect(b.sessions.load('twice')).rejects.toMatchObject({
      code: SessionErrorCode.SESSION_LOCKED,
      data: { pid: process.pid },
    })
    expect(() => b.sessions.create('twice')).toThrow(
      expect.objectContaining({ code: SessionErrorCode.SESSION_ALREADY_EXISTS }),
    )
    await a.stop()
    const loaded = await b.sessions.load('twice')
    expect(loaded.id).toBe('twice')
    await b.stop()
  })
})
