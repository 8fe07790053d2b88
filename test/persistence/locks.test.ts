import { type ChildProcess, fork } from 'node:child_process'
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
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

/** Starts a process that opens `id` in the store (and, with `pen`, holds its pen) until killed. */
function holdInChild(id: string, mode: 'open' | 'pen' | 'turn'): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = fork(HOLDER, [store.dir, id, mode], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
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

function lockPid(id: string): string | undefined {
  const path = join(store.dir, `${id}.lock`)
  return existsSync(path) ? readFileSync(path, 'utf8').trim().split(' ')[0] : undefined
}

async function storedTurn(id: string): Promise<void> {
  const s = await startStore(store.dir)
  appendTurn(s.sessions.create(id, { meta: { cwd: '/l' } }), 'one')
  await s.sessions.close(id)
  await s.stop()
}

describe('one writer at a time across processes: the pen', () => {
  it('a session open (idle) in another process loads, forks and takes appends here, after its events', async () => {
    expect(existsSync('dist/persistence/index.js'), 'run `npm run build` first').toBe(true)
    await storedTurn('shared')
    const child = await holdInChild('shared', 'open')
    expect(lockPid('shared')).toBeUndefined()
    const s = await startStore(store.dir)
    const loaded = await s.sessions.load('shared')
    expect(loaded.lastSeq).toBe(7)
    expect(loaded.at(7)?.data).toEqual({ text: 'held' })
    const fork = await s.sessions.forkDurable('shared')
    expect(fork.header.seedLength).toBe(7)
    appendTurn(loaded, 'two')
    await s.sessions.flush('shared')
    expect(lockPid('shared')).toBeUndefined()
    await killed(child)
    await s.stop()
    const again = await startStore(store.dir)
    expect((await again.sessions.load('shared')).lastSeq).toBe(13)
    await again.stop()
  })

  it('while another process holds the pen, an append is refused with SESSION_LOCKED and its pid; after a SIGKILL the lock is stale and taken over', async () => {
    await storedTurn('shared')
    const child = await holdInChild('shared', 'pen')
    const s = await startStore(store.dir)
    const loaded = await s.sessions.load('shared')
    expect(loaded.lastSeq).toBe(7)
    const locked = { code: SessionErrorCode.SESSION_LOCKED, data: { sessionId: 'shared', pid: child.pid } }
    expect(() => appendTurn(loaded, 'refused')).toThrow(expect.objectContaining(locked))
    expect(loaded.lastSeq).toBe(7)
    expect(() => s.sessions.takePen(loaded)).toThrow(expect.objectContaining(locked))
    // A fork needs no pen: it copies the durable prefix.
    const fork = await s.sessions.forkDurable(loaded)
    expect(fork.header.seedLength).toBe(7)
    await s.sessions.close(fork.id)
    await s.sessions.close('shared')
    await expect(s.sessions.delete('shared')).rejects.toMatchObject(locked)
    expect(lockPid('shared')).toBe(String(child.pid))

    await killed(child)
    const after = await s.sessions.load('shared')
    const pen = s.sessions.takePen(after)
    expect(lockPid('shared')).toBe(String(process.pid))
    appendTurn(after, 'two')
    await pen.release()
    expect(lockPid('shared')).toBeUndefined()
    await s.stop()
  })

  it('takes over a lock holding a dead pid, garbage, or its own pid from an earlier life, at the first append', async () => {
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
      const pen = s.sessions.takePen(loaded)
      expect(lockPid(id)).toBe(String(process.pid))
      await pen.release()
    }
    await s.stop()
  })

  it('a second context of this process loads a session the first holds open, and waits for its pen', async () => {
    const a = await startStore(store.dir)
    const b = await startStore(store.dir)
    const first = a.sessions.create('twice')
    await a.sessions.flush('twice')
    const second = await b.sessions.load('twice')
    expect(() => b.sessions.create('twice')).toThrow(
      expect.objectContaining({ code: SessionErrorCode.SESSION_ALREADY_EXISTS }),
    )
    const pen = a.sessions.takePen(first)
    appendTurn(first, 'from a')
    expect(() => b.sessions.takePen(second)).toThrow(
      expect.objectContaining({
        code: SessionErrorCode.SESSION_LOCKED,
        data: { sessionId: 'twice', pid: process.pid },
      }),
    )
    await pen.release()
    const caught = b.sessions.takePen(second)
    // Taken in by the pen, or already by the watch of the file (which may report it first).
    expect(second.events().map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6])
    expect(caught.caughtUp.every((e) => e.seq <= 6)).toBe(true)
    expect(b.sessions.takeCaughtUp(second)).toEqual([{ from: 1, to: 6 }])
    appendTurn(second, 'from b')
    await caught.release()
    expect(second.lastSeq).toBe(12)
    await a.stop()
    await b.stop()
    const c = await startStore(store.dir)
    expect((await c.sessions.load('twice')).events().map((e) => e.seq)).toEqual(
      [...Array(12).keys()].map((i) => i + 1),
    )
    await c.stop()
  })

  it('a session loaded while its turn runs elsewhere is left open (not ended here); once that writer died, the next pen ends it interrupted', async () => {
    await storedTurn('busy')
    const child = await holdInChild('busy', 'turn')
    const s = await startStore(store.dir)
    const loaded = await s.sessions.load('busy')
    expect(loaded.lastSeq).toBe(9)
    expect(loaded.openTurn).toBe(2)
    expect(() => appendTurn(loaded, 'refused')).toThrow(
      expect.objectContaining({
        code: SessionErrorCode.SESSION_LOCKED,
        data: { sessionId: 'busy', pid: child.pid },
      }),
    )
    await killed(child)
    const pen = s.sessions.takePen(loaded)
    expect(loaded.at(10)).toMatchObject({ type: 'turn/end', data: { turn: 2, reason: 'interrupted' } })
    appendTurn(loaded, 'goes on')
    await pen.release()
    await s.stop()
    const again = await startStore(store.dir)
    expect((await again.sessions.load('busy')).lastSeq).toBe(16)
    await again.stop()
  })

  it('a file replaced or removed by another process since this one opened it: SESSION_CHANGED, nothing written', async () => {
    await storedTurn('swapped')
    const s = await startStore(store.dir)
    const loaded = await s.sessions.load('swapped')
    const path = join(store.dir, 'swapped.jsonl')
    const bytes = readFileSync(path)
    writeFileSync(`${path}.new`, bytes)
    renameSync(`${path}.new`, path)
    expect(() => appendTurn(loaded, 'refused')).toThrow(
      expect.objectContaining({
        code: SessionErrorCode.SESSION_CHANGED,
        data: { sessionId: 'swapped', path },
      }),
    )
    expect(readFileSync(path)).toEqual(bytes)
    expect(lockPid('swapped')).toBeUndefined()
    await s.stop()
  })

  it('catching up cuts a torn tail a dead writer left, then appends after the last whole event', async () => {
    await storedTurn('torn')
    const s = await startStore(store.dir)
    const loaded = await s.sessions.load('torn')
    const path = join(store.dir, 'torn.jsonl')
    const whole = readFileSync(path, 'utf8')
    const line = (seq: number) =>
      `${JSON.stringify({ seq, type: 'context/note', time: new Date().toISOString(), data: { text: `n${seq}` } })}\n`
    // Another process appended one event and died in the middle of the next line.
    writeFileSync(path, `${whole}${line(7)}${line(8).slice(0, 20)}`)
    const pen = s.sessions.takePen(loaded)
    expect(pen.caughtUp.map((e) => e.seq)).toEqual([7])
    appendTurn(loaded, 'after')
    await s.sessions.flush('torn')
    await pen.release()
    const lines = readFileSync(path, 'utf8').split('\n').slice(1, -1)
    expect(lines.map((l) => JSON.parse(l).seq)).toEqual([...Array(13).keys()].map((i) => i + 1))
    await s.stop()
  })
})
