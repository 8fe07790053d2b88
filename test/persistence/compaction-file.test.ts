import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { projectHistory, SessionErrorCode } from '../../src/session/index.js'
import { appendTurn, startStore, tempDir } from '../support/session-store.js'

// How a `context/compaction` is stored, and what a reader that does not know the type does with it.

let store: ReturnType<typeof tempDir>
beforeEach(() => {
  store = tempDir()
})
afterEach(() => store.cleanup())

async function compactedSession(id: string): Promise<number> {
  const s = await startStore(store.dir)
  const session = s.sessions.create(id, { meta: { cwd: '/u' } })
  appendTurn(session, 'first')
  const through = session.lastSeq
  session.append({
    type: 'context/compaction',
    data: {
      compactionId: 'c1',
      summary: 'the user said first',
      through,
      model: 'echo',
      tokensBefore: 90,
      tokensAfter: 20,
    },
  })
  appendTurn(session, 'second')
  await s.stop()
  return through
}

describe('a compaction in the session file', () => {
  it('is one event line; a load gives back the compacted model view', async () => {
    await compactedSession('c')
    const lines = readFileSync(join(store.dir, 'c.jsonl'), 'utf8').trim().split('\n')
    expect(lines.filter((l) => l.includes('"type":"context/compaction"'))).toHaveLength(1)
    const s = await startStore(store.dir)
    const loaded = await s.sessions.load('c')
    expect(projectHistory(loaded.events()).map((m) => m.role)).toEqual(['summary', 'user', 'assistant'])
    await s.stop()
  })

  it('a reader that does not know a core type (as a dsh-acp older than compaction) refuses the file, naming the seq', async () => {
    // Today's reader, given a core-style type it does not know, does what an older one does with
    // context/compaction: no guess, a CORRUPT_SESSION naming the event.
    const through = await compactedSession('old')
    const file = join(store.dir, 'old.jsonl')
    writeFileSync(file, readFileSync(file, 'utf8').replace('"context/compaction"', '"context/compaction-v9"'))
    const s = await startStore(store.dir)
    await expect(s.sessions.load('old')).rejects.toMatchObject({
      code: SessionErrorCode.CORRUPT_SESSION,
      message: expect.stringContaining('unknown event type "context/compaction-v9"'),
      data: expect.objectContaining({ seq: through + 1 }),
    })
    await s.stop()
  })

  it('a compaction through a seq inside a turn is refused on append (the log is unchanged)', async () => {
    const s = await startStore()
    const session = s.sessions.create()
    appendTurn(session, 'one')
    const before = session.lastSeq
    session.append({ type: 'turn/start', data: { turn: 2 } })
    expect(() =>
      session.append({
        type: 'context/compaction',
        data: {
          compactionId: 'x',
          summary: 's',
          through: before + 1,
          model: 'm',
          tokensBefore: 1,
          tokensAfter: 1,
        },
      }),
    ).toThrow(/inside a turn/)
    expect(() =>
      session.append({
        type: 'context/compaction',
        data: {
          compactionId: 'x',
          summary: 's',
          through: session.lastSeq + 1,
          model: 'm',
          tokensBefore: 1,
          tokensAfter: 1,
        },
      }),
    ).toThrow(/is not before it/)
    expect(session.lastSeq).toBe(before + 1)
    await s.stop()
  })
})
