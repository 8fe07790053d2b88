import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type FileSystem, nodeFileSystem, type OpenFile } from '../../src/persistence/fs/file-system.js'
import { appendTurn, type StoreFixture, startStore, tempDir } from '../support/session-store.js'

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
})

/** The real file system, recording how each session-file batch was written; the first `slowWrites` synchronous writes are slow. */
function slowSyncWrites(slowWrites: number): { fs: FileSystem; writes: string[] } {
  const writes: string[] = []
  let slowLeft = slowWrites
  const fs: FileSystem = {
    ...nodeFileSystem,
    async open(path, flags, mode) {
      const file = await nodeFileSystem.open(path, flags, mode)
      if (flags !== 'r+' && flags !== 'wx') return file
      const recorded: OpenFile = Object.create(file)
      recorded.writeSync = (buffer, offset, length, position) => {
        writes.push('sync')
        if (slowLeft > 0) {
          slowLeft--
          const until = performance.now() + 5
          while (performance.now() < until) {}
        }
        return file.writeSync(buffer, offset, length, position)
      }
      recorded.write = (buffer, offset, length, position) => {
        writes.push('async')
        return file.write(buffer, offset, length, position)
      }
      recorded.writev = (buffers, position) => {
        writes.push('async')
        return file.writev(buffers, position)
      }
      return recorded
    },
  }
  return { fs, writes }
}

/** Writes three turns, flushing each, into a store on `fs`; returns how its batches were written. */
async function threeTurns(dir: string, fs: FileSystem, writes: string[]): Promise<void> {
  const store: StoreFixture = await startStore(dir, { fs })
  const session = store.sessions.create()
  await store.sessions.flush(session.id)
  writes.length = 0
  for (const text of ['one', 'two', 'three']) {
    appendTurn(session, text)
    await store.sessions.flush(session.id)
  }
  const lines = readFileSync(join(dir, `${session.id}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
  expect(lines.map((line) => (JSON.parse(line) as { seq: number }).seq)).toEqual(
    session.events().map((event) => event.seq),
  )
  await store.stop()
}

describe('appends on a slow disk', () => {
  // Each slow synchronous write takes 5 ms; every batch is written, in order, whichever way it goes.
  it.each([
    {
      slow: 2,
      when: 'go to the thread pool after two slow synchronous writes',
      expected: ['sync', 'sync', 'async'],
    },
    {
      slow: 1,
      when: 'stay synchronous after one slow write (a busy CPU, not a slow disk)',
      expected: ['sync', 'sync', 'sync'],
    },
  ])('$when, and nothing is lost', async ({ slow, expected }) => {
    const { dir, cleanup } = tempDir()
    cleanups.push(cleanup)
    const { fs, writes } = slowSyncWrites(slow)
    await threeTurns(dir, fs, writes)
    expect(writes).toEqual(expected)
  })
})
