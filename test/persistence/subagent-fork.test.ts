import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SessionErrorCode } from '../../src/session/index.js'
import { appendTurn, startStore, tempDirPerTest } from '../support/session-store.js'

const store = tempDirPerTest()

describe('a subagent fork on disk', () => {
  it('is durable while the parent’s turn is open: its header keeps the marker, its seed the parent’s closed prefix', async () => {
    const first = await startStore(store.dir)
    const parent = first.sessions.create('parent', { meta: { cwd: '/proj' } })
    appendTurn(parent, 'hello')
    parent.append({ type: 'turn/start', data: { turn: 2 } })
    parent.append({ type: 'user/message', data: { turn: 2, content: [{ type: 'text', text: 'go' }] } })
    const child = await first.sessions.forkSubagentDurable(
      parent,
      { turn: 2, callId: 'call_1' },
      { childSessionId: 'kid', title: 'Worker' },
    )
    expect(child.header.seedLength).toBe(6)
    const parentBytes = readFileSync(join(store.dir, 'parent.jsonl'), 'utf8').split('\n')
    const childBytes = readFileSync(join(store.dir, 'kid.jsonl'), 'utf8').split('\n')
    expect(JSON.parse(childBytes[0] as string)).toEqual({
      version: 1,
      id: 'kid',
      createdAt: child.header.createdAt,
      cwd: '/proj',
      parentSession: 'parent',
      seedLength: 6,
      title: 'Worker',
      subagent: { turn: 2, callId: 'call_1' },
    })
    expect(childBytes.slice(1, 7)).toEqual(parentBytes.slice(1, 7))
    await first.stop()

    const second = await startStore(store.dir)
    const listed = (await second.sessions.list()).sessions.find((s) => s.sessionId === 'kid')
    expect(listed).toMatchObject({
      parentSession: 'parent',
      seedLength: 6,
      subagent: { turn: 2, callId: 'call_1' },
    })
    const loaded = await second.sessions.load('kid')
    expect(loaded.header.subagent).toEqual({ turn: 2, callId: 'call_1' })
    expect(loaded.events()).toEqual(child.events())
    await second.stop()
  })

  it('a header whose marker is malformed, or names no parent, is corruption of line 1', async () => {
    const first = await startStore(store.dir)
    const parent = first.sessions.create('parent')
    await first.sessions.forkSubagentDurable(parent, { turn: 1, callId: 'c' }, { childSessionId: 'kid' })
    await first.stop()
    const file = join(store.dir, 'kid.jsonl')
    const lines = readFileSync(file, 'utf8').split('\n')
    const header = JSON.parse(lines[0] as string)
    for (const bad of [
      { ...header, subagent: { turn: 0, callId: 'c' } },
      { ...header, subagent: { turn: 1 } },
      { ...header, parentSession: undefined, seedLength: undefined },
    ]) {
      writeFileSync(file, [JSON.stringify(bad), ...lines.slice(1)].join('\n'))
      const second = await startStore(store.dir)
      await expect(second.sessions.load('kid')).rejects.toMatchObject({
        code: SessionErrorCode.CORRUPT_SESSION,
        data: { line: 1 },
      })
      await second.stop()
    }
  })
})
