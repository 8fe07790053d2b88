import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type SessionEvent, storedLineOf } from '../../src/session/index.js'
import { appendTurn, startStore, tempDirPerTest } from '../support/session-store.js'

const store = tempDirPerTest()

describe('the line a stored event was parsed from', () => {
  it('is lent to the load listener with each event, exactly as stored, and only during that call', async () => {
    const writer = await startStore(store.dir)
    const session = writer.sessions.create('lent', { meta: { cwd: '/w' } })
    appendTurn(session, `long ${'ab\ncd "q" é'.repeat(2000)}`)
    appendTurn(session, 'short')
    await writer.stop()
    const stored = readFileSync(join(store.dir, 'lent.jsonl'), 'utf8').split('\n').slice(1, -1)

    const reader = await startStore(store.dir)
    const heard: Array<{ event: SessionEvent; line: string | undefined }> = []
    const loaded = await reader.sessions.load('lent', (event) => {
      const line = storedLineOf(event)
      heard.push({ event, line: line && Buffer.from(line).toString('utf8') })
    })
    expect(heard.map((h) => h.line)).toEqual(stored)
    expect(heard.map((h) => storedLineOf(h.event))).toEqual(stored.map(() => undefined))
    for (const event of loaded.events()) expect(storedLineOf(event)).toBeUndefined()
    await reader.stop()
  })
})
