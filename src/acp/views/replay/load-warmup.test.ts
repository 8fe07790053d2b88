import { afterEach, describe, expect, it } from 'vitest'
import { appendAll, cleanTurn, startStore, tempDir } from '../../../../test/support/session-store.js'
import { warmLoadPath } from './load-warmup.js'

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function diskStore() {
  const dir = tempDir()
  cleanups.push(dir.cleanup)
  const store = await startStore(dir.dir)
  cleanups.push(() => store.stop())
  return { dir: dir.dir, store }
}

describe('warmLoadPath', () => {
  it('reads the latest stored session without opening it: nothing live, nothing locked, its load still works', async () => {
    const { dir, store } = await diskStore()
    const session = await store.sessions.createDurable(undefined, { meta: { cwd: '/work' } })
    appendAll(session, [...cleanTurn(1), ...cleanTurn(2)])
    await store.sessions.closeAll()
    await store.persistence.idle()
    expect(store.sessions.get(session.id)).toBeUndefined()

    await warmLoadPath(store.sessions)
    expect(store.sessions.get(session.id)).toBeUndefined()
    // Another process (here: another store on the same directory) can open it: no lock was left.
    const other = await startStore(dir)
    cleanups.push(() => other.stop())
    expect((await other.sessions.load(session.id)).events()).toHaveLength(session.events().length)
  })

  it('reads nothing once busy() says a call came in', async () => {
    const { store } = await diskStore()
    const session = await store.sessions.createDurable(undefined, { meta: { cwd: '/work' } })
    appendAll(session, cleanTurn(1))
    await store.sessions.closeAll()
    let asked = 0
    await warmLoadPath(store.sessions, undefined, () => ++asked > 1)
    // Asked before the read (idle), then after the first event (busy): the read stopped there.
    expect(asked).toBe(2)
  })

  it('resolves on an empty store', async () => {
    const { store } = await diskStore()
    await expect(warmLoadPath(store.sessions)).resolves.toBeUndefined()
  })
})
