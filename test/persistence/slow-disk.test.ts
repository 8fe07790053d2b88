import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type FileSystem, nodeFileSystem, type OpenFile } from '../../src/persistence/file-system.js'
import { appendTurn, type StoreFixture, startStore, tempDir } from './store-fixture.js'

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
})

/** The real file system, recording how each session-file batch was written; the first synchronous write is slow. */
function slowFirstSyncWrite(): { fs: FileSystem; writes: string[] } {
  const writes: string[] = []
  let slowOnce = true
  const fs: FileSystem = {
    ...nodeFileSystem,
    async open(path, flags, mode) {
      const file = await nodeFileSystem.open(path, flags, mode)
      if (flags !== 'r+' && flags !== 'wx') return file
      const recorded: OpenFile = Object.create(file)
      recorded.writeSync = (buffer, offset, length, position) => {
        writes.push('sync')
        if (slowOnce) {
          slowOnce = false
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

describe('appends on a slow disk', () => {
  it('go to the thread pool after a synchronous write was slow, and nothing is lost', async () => {
    const { dir, cleanup } = tempDir()
    cleanups.push(cleanup)
    const { fs, writes } = slowFirstSyncWrite()
    const store: StoreFixture = await startStore(dir, { fs })
    const session = store.sessions.create()
    await store.sessions.flush(session.id)
    writes.length = 0
    appendTurn(session, 'one')
    await store.sessions.flush(session.id)
    appendTurn(session, 'two')
    await store.sessions.flush(session.id)
    appendTurn(session, 'three')
    await store.sessions.flush(session.id)
    // The first batch went out synchronously and took 5 ms: the next ones go to the thread pool.
    expect(writes).toEqual(['sync', 'async', 'async'])
    const lines = readFileSync(join(dir, `${session.id}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
    expect(lines.map((line) => (JSON.parse(line) as { seq: number }).seq)).toEqual(
      session.events().map((event) => event.seq),
    )
    await store.stop()
  })
})
