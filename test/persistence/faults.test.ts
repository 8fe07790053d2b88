import { readdirSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type Fault, FaultyFileSystem, nodeFileSystem } from '../../src/persistence/index.js'
import { SessionError, SessionErrorCode } from '../../src/session/index.js'
import { appendTurn, startStore, tempDir } from '../support/session-store.js'

let store: ReturnType<typeof tempDir>
beforeEach(() => {
  store = tempDir()
})
afterEach(() => store.cleanup())

const faults: Fault[] = [
  ...[1, 2, 3, 4].flatMap((nth) =>
    (['ENOSPC', 'EIO', 'short'] as const).map((error) => ({ operation: 'write' as const, nth, error })),
  ),
  ...[1, 2, 3, 4].map((nth) => ({ operation: 'datasync' as const, nth, error: 'EIO' as const })),
  { operation: 'rename', nth: 1, error: 'EACCES' },
  { operation: 'open', nth: 1, error: 'EACCES' },
]

describe('fault injection', () => {
  it.each(faults)(
    'surfaces $operation #$nth failing with $error; the file stays loadable, nothing acknowledged is lost',
    async (fault) => {
      const faulty = new FaultyFileSystem(nodeFileSystem, fault)
      const s = await startStore(store.dir, { fs: faulty })
      const session = s.sessions.create('faulty', { meta: { cwd: '/f' } })
      let acknowledged = 0
      let failure: unknown
      for (let round = 0; round < 4 && failure === undefined; round++) {
        try {
          await s.sessions.flush(session.id)
          acknowledged = session.lastSeq
          appendTurn(session, `turn ${round} ${'p'.repeat(5000)}`)
        } catch (error) {
          failure = error
        }
      }
      expect(faulty.injected).toBeGreaterThan(0)
      expect(failure).toBeInstanceOf(SessionError)
      const error = failure as SessionError
      expect(error.code).toBe(SessionErrorCode.PERSISTENCE_FAILED)
      const errno = fault.error === 'short' ? 'ENOSPC' : fault.error
      expect(error.data).toMatchObject({ sessionId: 'faulty', errno })
      expect(error.message).toContain(errno)
      expect(error.message).toMatch(/faulty/)
      expect(() => session.append({ type: 'context/note', data: { text: 'no' } })).toThrow(
        expect.objectContaining({ code: SessionErrorCode.SESSION_READ_ONLY }),
      )
      const inMemory = session.events()
      await s.stop()

      const healthy = await startStore(store.dir)
      expect(readdirSync(store.dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
      if (!(await healthy.persistence.exists('faulty'))) {
        expect(acknowledged).toBe(0)
      } else {
        const loaded = await healthy.sessions.load('faulty')
        const events = loaded.events().filter((e) => e.type !== 'turn/end' || e.data.reason !== 'interrupted')
        expect(events.length).toBeGreaterThanOrEqual(acknowledged)
        expect(events).toEqual(inMemory.slice(0, events.length))
        appendTurn(loaded, 'after recovery')
        await healthy.sessions.close('faulty')
        await healthy.persistence.idle()
        const again = await healthy.sessions.load('faulty')
        expect(again.lastSeq).toBe(loaded.lastSeq)
      }
      await healthy.stop()
    },
  )

  it('a fork whose child cannot be written is refused whole, and its parent goes on', async () => {
    const faulty = new FaultyFileSystem(nodeFileSystem, { operation: 'rename', nth: 2, error: 'EIO' })
    const s = await startStore(store.dir, { fs: faulty })
    const parent = s.sessions.create('parent', { meta: { cwd: '/f' } })
    appendTurn(parent, 'x')
    await s.sessions.flush(parent.id)
    await expect(s.sessions.forkDurable(parent, undefined, 'child')).rejects.toMatchObject({
      code: SessionErrorCode.PERSISTENCE_FAILED,
      data: { op: 'rename', errno: 'EIO' },
    })
    expect(s.sessions.get('child')).toBeUndefined()
    appendTurn(parent, 'y')
    await s.sessions.flush(parent.id)
    await s.persistence.idle()
    expect(await s.persistence.exists('child')).toBe(false)
    expect(readdirSync(store.dir).sort()).toEqual(['parent.jsonl'])
    await s.stop()
  })
})
