import { describe, expect, it } from 'vitest'
import { appendAll, cleanTurn, startStore } from '../../../test/support/session-store.js'

describe('updatedAt (ACP SessionInfo: the last activity)', () => {
  it('is the last event time, and a fork child’s is never before its own creation', async () => {
    const f = await startStore()
    try {
      const parent = appendAll(f.sessions.create('p'), cleanTurn(1))
      const lastParentEvent = parent.events().at(-1)?.time
      expect(parent.updatedAt).toBe(lastParentEvent)
      f.tick()
      f.tick()
      const child = f.sessions.fork(parent, parent.lastSeq, 'c')
      expect(child.header.createdAt > (lastParentEvent as string)).toBe(true)
      expect(child.updatedAt).toBe(child.header.createdAt)
      f.tick()
      const own = child.append({ type: 'context/note', data: { text: 'mine' } })
      expect(child.updatedAt).toBe(own.time)
    } finally {
      await f.stop()
    }
  })
})
