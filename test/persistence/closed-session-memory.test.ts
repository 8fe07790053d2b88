import { describe, expect, it } from 'vitest'
import { processMemory } from '../../src/process/memory-release.js'
import { projectHistory, type Session } from '../../src/session/index.js'
import { appendTurn, startStore, tempDirPerTest } from '../support/session-store.js'

const store = tempDirPerTest()

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0))

/**
 * Memory comes back after a close only if nothing keeps the session: not the store, the backend
 * (its stand-ins for large bodies, their body file, the catalog) nor anything listing it later.
 */
describe('a closed session', () => {
  it('is left to the garbage collector: no cache of the store or its backend holds it or any of its events', async () => {
    const writer = await startStore(store.dir)
    const written = writer.sessions.create('big', { meta: { cwd: '/w' } })
    for (let turn = 1; turn <= 6; turn++)
      appendTurn(written, `prompt ${turn} ${'x'.repeat(turn % 2 ? 10 : 20_000)}`)
    written.append({ type: 'session/title', data: { title: 'Kept on disk' } })
    await writer.stop()

    const s = await startStore(store.dir)
    const refs = await (async () => {
      const session: Session = await s.sessions.load('big')
      // Large bodies read back (the stand-ins' reads) and the history projected, as a prompt would.
      expect(projectHistory(session.events()).length).toBeGreaterThan(0)
      const events = session.events()
      return { session: new WeakRef(session), events: events.map((event) => new WeakRef(event)) }
    })()
    await s.sessions.close('big')
    expect((await s.sessions.list({})).sessions.map((x) => x.title)).toEqual(['Kept on disk'])
    const memory = processMemory()
    // Collected until nothing is left, a few times at most: a task still running at the close (a
    // background close of the file) may hold events until it ends, but nothing may hold them for good.
    const alive = () => [refs.session, ...refs.events].some((ref) => ref.deref() !== undefined)
    for (let i = 0; i < 5 && alive(); i++) {
      await nextTask()
      expect(await memory.collect()).toBe(true)
    }
    expect(refs.session.deref()).toBeUndefined()
    expect(refs.events.filter((event) => event.deref() !== undefined)).toEqual([])
    await s.stop()
  })
})
