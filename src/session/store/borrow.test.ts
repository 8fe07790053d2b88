import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { appendTurn, startStore, tempDir } from '../../../test/support/session-store.js'

let store: ReturnType<typeof tempDir>
beforeEach(() => {
  store = tempDir()
})
afterEach(() => store.cleanup())

async function storedSession(id: string): Promise<void> {
  const writer = await startStore(store.dir)
  appendTurn(writer.sessions.create(id), 'hello')
  await writer.stop()
}

const archive = { type: 'session/archived', data: { archived: true } } as const

describe('SessionStore.borrow and whereIs', () => {
  it('makes a stored session live for the call only, with what it appended durable', async () => {
    await storedSession('s')
    const f = await startStore(store.dir)
    expect(await f.sessions.whereIs('s')).toBe('stored')
    await f.sessions.borrow('s', (session) => session.append(archive))
    expect(f.sessions.get('s')).toBeUndefined()
    expect(await f.sessions.whereIs('s')).toBe('stored')
    expect((await f.sessions.open('s')).archived).toBe(true)
    expect(await f.sessions.whereIs('s')).toBe('live')
    expect(await f.sessions.whereIs('nobody')).toBeUndefined()
    await f.stop()
  })

  it('leaves live a session someone loaded while it was borrowed, and a live one live', async () => {
    await storedSession('s')
    const f = await startStore(store.dir)
    let loaded: unknown
    await f.sessions.borrow('s', async (session) => {
      expect(await f.sessions.whereIs('s')).toBe('stored')
      loaded = await f.sessions.load('s')
      expect(loaded).toBe(session)
      session.append(archive)
    })
    expect(f.sessions.get('s')).toBe(loaded)
    await f.sessions.borrow('s', () => undefined)
    expect(f.sessions.get('s')).toBe(loaded)
    await f.stop()
  })

  it('refuses an unknown session', async () => {
    const f = await startStore(store.dir)
    await expect(f.sessions.borrow('nobody', () => undefined)).rejects.toMatchObject({
      code: 'SESSION_NOT_FOUND',
    })
    await f.stop()
  })
})
