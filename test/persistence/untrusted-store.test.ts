import { execFileSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FaultyFileSystem, nodeFileSystem } from '../../src/persistence/index.js'
import { processStartTime } from '../../src/persistence/session-lock.js'
import { SessionErrorCode } from '../../src/session/index.js'
import { appendTurn, startStore, tempDir } from '../support/session-store.js'

let store: ReturnType<typeof tempDir>
let outside: ReturnType<typeof tempDir>
beforeEach(() => {
  store = tempDir()
  outside = tempDir('dsh-outside-')
})
afterEach(() => {
  store.cleanup()
  outside.cleanup()
})

/** Writes a valid session `id` with one turn, then lets go of it. */
async function storedSession(id: string): Promise<void> {
  const s = await startStore(store.dir)
  appendTurn(s.sessions.create(id, { meta: { cwd: '/u' } }), 'stored')
  await s.stop()
}

/** Resolves `promise`, or fails the test after `ms` (a hang is the bug). */
function within<T>(promise: Promise<T>, ms = 5000): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms)),
  ])
}

describe('the store directory is not a trusted place', () => {
  it('a session file that is a symlink is refused (CORRUPT_SESSION), its target untouched', async () => {
    await storedSession('real')
    const target = join(outside.dir, 'victim.jsonl')
    writeFileSync(
      target,
      readFileSync(join(store.dir, 'real.jsonl'), 'utf8').replaceAll('"real"', '"linked"'),
    )
    const before = readFileSync(target, 'utf8')
    symlinkSync(target, join(store.dir, 'linked.jsonl'))
    const s = await startStore(store.dir)
    await expect(s.sessions.load('linked')).rejects.toMatchObject({
      code: SessionErrorCode.CORRUPT_SESSION,
      message: expect.stringContaining('symbolic link'),
    })
    await expect(s.sessions.delete('linked')).rejects.toMatchObject({
      code: SessionErrorCode.CORRUPT_SESSION,
    })
    expect(readFileSync(target, 'utf8')).toBe(before)
    await s.stop()
  })

  it('a lock that is a symlink is refused, its target untouched', async () => {
    await storedSession('locked')
    const target = join(outside.dir, 'victim.txt')
    writeFileSync(target, 'keep me')
    symlinkSync(target, join(store.dir, 'locked.lock'))
    const s = await startStore(store.dir)
    // Opening takes no lock; the first append, which takes the pen, is refused.
    const loaded = await s.sessions.load('locked')
    const before = loaded.lastSeq
    expect(() => appendTurn(loaded, 'refused')).toThrow(
      expect.objectContaining({
        code: SessionErrorCode.PERSISTENCE_FAILED,
        message: expect.stringContaining('symbolic link'),
      }),
    )
    expect(loaded.lastSeq).toBe(before)
    expect(readFileSync(target, 'utf8')).toBe('keep me')
    await s.stop()
  })

  it('FIFOs named *.jsonl and *.lock neither hang list nor load; a link to /dev/zero is refused at once', async () => {
    await storedSession('good')
    for (const name of ['a.jsonl', 'b.jsonl', 'c.jsonl', 'd.jsonl', 'good.lock']) {
      execFileSync('mkfifo', [join(store.dir, name)])
    }
    symlinkSync('/dev/zero', join(store.dir, 'zero.jsonl'))
    const s = await startStore(store.dir)
    const page = await within(s.sessions.list())
    expect(page.sessions.map((x) => x.sessionId)).toEqual(['good'])
    await expect(within(s.sessions.load('a'))).rejects.toMatchObject({
      code: SessionErrorCode.CORRUPT_SESSION,
    })
    await expect(within(s.sessions.load('zero'))).rejects.toMatchObject({
      code: SessionErrorCode.CORRUPT_SESSION,
    })
    const good = await within(s.sessions.load('good'))
    expect(() => appendTurn(good, 'refused')).toThrow(
      expect.objectContaining({ code: SessionErrorCode.PERSISTENCE_FAILED }),
    )
    await within(s.stop())
  })

  it('startup never fails on leftovers it cannot remove: a temp-named directory stays, the store works', async () => {
    const leftovers = ['.x.999999999.0123456789ab.tmp', 'y.lock.999999999.0123456789ab.stale']
    for (const name of leftovers) mkdirSync(join(store.dir, name))
    // A dead process's temp file beside them: startup's tidying ran and removed it.
    writeFileSync(join(store.dir, '.z.999999999.0123456789ab.tmp'), 'orphan')
    const s = await startStore(store.dir)
    expect(s.internalErrors).toEqual([])
    expect(existsSync(join(store.dir, '.z.999999999.0123456789ab.tmp'))).toBe(false)
    for (const name of leftovers) expect(statSync(join(store.dir, name)).isDirectory()).toBe(true)
    appendTurn(s.sessions.create('after', { meta: { cwd: '/u' } }), 'works')
    await s.sessions.flush('after')
    await s.stop()

    const again = await startStore(store.dir)
    expect(again.internalErrors).toEqual([])
    expect((await again.sessions.list()).sessions.map((x) => x.sessionId)).toEqual(['after'])
    const after = await again.sessions.load('after')
    expect(after.lastTurn).toBe(1)
    await again.stop()
  })

  it('a lock whose pid is alive but belongs to a newer process (pid reuse) is taken over; stale locks go at startup', async () => {
    await storedSession('reused')
    await storedSession('crashed')
    const parent = process.ppid
    const start = processStartTime(parent)
    expect(start, 'needs /proc').toBeDefined()
    writeFileSync(join(store.dir, 'reused.lock'), `${parent} ${Number(start) + 1}\n`)
    writeFileSync(join(store.dir, 'crashed.lock'), '999999999 12345\n')
    writeFileSync(join(store.dir, 'held.lock'), `${parent} ${start}\n`)
    const s = await startStore(store.dir)
    expect(existsSync(join(store.dir, 'crashed.lock'))).toBe(false)
    expect(existsSync(join(store.dir, 'held.lock'))).toBe(true)
    const loaded = await s.sessions.load('reused')
    expect(loaded.lastSeq).toBeGreaterThan(0)
    // The stale lock is taken over by the first append (which takes the pen).
    appendTurn(loaded, 'taken over')
    expect(readFileSync(join(store.dir, 'reused.lock'), 'utf8')).toBe(
      `${process.pid} ${processStartTime(process.pid)}\n`,
    )
    await s.stop()
  })

  it('a create whose directory sync fails leaves no session file behind', async () => {
    // datasync #1 is the temp file's, #2 the directory's after the rename.
    const faulty = new FaultyFileSystem(nodeFileSystem, { operation: 'datasync', nth: 2, error: 'EIO' })
    const s = await startStore(store.dir, { fs: faulty })
    await expect(s.sessions.createDurable('doomed', { meta: { cwd: '/u' } })).rejects.toMatchObject({
      code: SessionErrorCode.PERSISTENCE_FAILED,
    })
    await s.persistence.idle()
    expect(readdirSync(store.dir)).toEqual([])
    await s.stop()
  })

  it('a list that cannot open a file (no descriptors left) fails rather than leave the session out', async () => {
    await storedSession('one')
    await storedSession('two')
    const faulty = new FaultyFileSystem(nodeFileSystem, {
      operation: 'openRead',
      nth: 1,
      error: 'EMFILE',
      sticky: true,
    })
    const s = await startStore(store.dir, { fs: faulty })
    await expect(s.sessions.list()).rejects.toMatchObject({
      code: SessionErrorCode.PERSISTENCE_FAILED,
      message: expect.stringContaining('EMFILE'),
    })
    await s.stop()
  })

  it('a list retries a file that could not be opened once', async () => {
    await storedSession('one')
    await storedSession('two')
    const faulty = new FaultyFileSystem(nodeFileSystem, { operation: 'openRead', nth: 1, error: 'EMFILE' })
    const s = await startStore(store.dir, { fs: faulty })
    expect((await s.sessions.list()).sessions.map((x) => x.sessionId).sort()).toEqual(['one', 'two'])
    await s.stop()
  })

  it('a directory named x.jsonl is refused on load and delete as not a regular file', async () => {
    mkdirSync(join(store.dir, 'x.jsonl'))
    const s = await startStore(store.dir)
    await expect(s.sessions.load('x')).rejects.toMatchObject({
      code: SessionErrorCode.CORRUPT_SESSION,
      message: expect.stringContaining('directory'),
    })
    await expect(s.sessions.delete('x')).rejects.toMatchObject({ code: SessionErrorCode.CORRUPT_SESSION })
    expect(statSync(join(store.dir, 'x.jsonl')).isDirectory()).toBe(true)
    await s.stop()
  })
})
