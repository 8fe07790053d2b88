import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { projectHistory, SessionErrorCode } from '../../src/session/index.js'
import { appendTurn, startStore, tempDirPerTest } from '../support/session-store.js'

const store = tempDirPerTest()

/** A stored session with small events and large ones (prompts and answers far above 4 KiB). */
async function writeSession(dir: string) {
  const s = await startStore(dir)
  const session = s.sessions.create('big', { meta: { cwd: '/w' } })
  for (let turn = 1; turn <= 6; turn++) {
    appendTurn(session, turn % 2 === 0 ? `long ${turn} ${'ab\ncd "q" é'.repeat(3000)}` : `short ${turn}`)
  }
  session.append({ type: 'context/note', data: { text: 'n'.repeat(9000) } })
  const written = session.events()
  await s.stop()
  return written
}

describe('a loaded session does not keep large event bodies in memory', () => {
  it('reads them back equal, frozen and in the stored key order, whenever they are looked at', async () => {
    const written = await writeSession(store.dir)
    const s = await startStore(store.dir)
    const loaded = await s.sessions.load('big')
    expect(loaded.events()).toEqual(written)
    const lines = readFileSync(join(store.dir, 'big.jsonl'), 'utf8').split('\n').slice(1, -1)
    expect(loaded.events().map((event) => JSON.stringify(event))).toEqual(lines)
    for (const event of loaded.events()) {
      expect(Object.isFrozen(event)).toBe(true)
      expect(Object.isFrozen(event.data)).toBe(true)
    }
    expect(projectHistory(loaded.events())).toEqual(projectHistory(written))
    appendTurn(loaded, 'after load')
    await s.sessions.close('big')
    const again = await s.sessions.load('big')
    expect(again.events().slice(0, written.length)).toEqual(written)
    await s.stop()
  })

  it('a fork child of a loaded session reads its inherited bodies after the parent was closed', async () => {
    const written = await writeSession(store.dir)
    const s = await startStore(store.dir)
    const parent = await s.sessions.load('big')
    const child = await s.sessions.forkDurable(parent, 12, 'child')
    const grandchild = await s.sessions.forkDurable(child, 6, 'grandchild')
    await s.sessions.close('big')
    expect(child.events()).toEqual(written.slice(0, 12))
    await s.sessions.close('child')
    expect(grandchild.events()).toEqual(written.slice(0, 6))
    await s.sessions.close('grandchild')
    const reloaded = await s.sessions.load('child')
    expect(reloaded.events()).toEqual(written.slice(0, 12))
    await s.stop()
  })

  it('once no live session holds them, a stale event says so instead of reading a reused descriptor', async () => {
    await writeSession(store.dir)
    const s = await startStore(store.dir)
    const loaded = await s.sessions.load('big')
    const large = loaded.at(10) // not looked into yet: its data is still in the file
    expect(large?.type).toBe('assistant/message')
    await s.sessions.close('big')
    await s.persistence.idle()
    expect(() => large?.data).toThrow(expect.objectContaining({ code: SessionErrorCode.SESSION_NOT_LIVE }))
    await s.stop()
  })
})
