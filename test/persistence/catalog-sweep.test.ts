import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionCatalog } from '../../src/persistence/catalog/session-catalog.js'
import { type FileSystem, nodeFileSystem } from '../../src/persistence/fs/file-system.js'
import { StorePaths } from '../../src/persistence/store-paths.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function sessionFile(dir: string, id: string, lastTime: string): void {
  const header = { version: 1, id, createdAt: '2024-01-01T00:00:00.000Z', cwd: '/w' }
  const event = { seq: 1, type: 'context/note', time: lastTime, data: { text: 'n' } }
  writeFileSync(join(dir, `${id}.jsonl`), `${JSON.stringify(header)}\n${JSON.stringify(event)}\n`)
}

/** The real file system, with a watch that never reports anything: every event is "lost". */
const deafWatch: FileSystem = { ...nodeFileSystem, watch: () => ({ close() {} }) }

describe('the catalog when the watch loses events', () => {
  it('finds changed, new and deleted files by its background check; lists never wait for it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-catalog-'))
    dirs.push(dir)
    sessionFile(dir, 'kept', '2024-01-02T00:00:00.000Z')
    sessionFile(dir, 'gone', '2024-01-03T00:00:00.000Z')
    const catalog = new SessionCatalog(deafWatch, new StorePaths(dir), () => {}, 0)
    catalog.open()
    const listed = async () => (await catalog.list({})).sessions.map((s) => [s.sessionId, s.updatedAt])
    expect(await listed()).toEqual([
      ['gone', '2024-01-03T00:00:00.000Z'],
      ['kept', '2024-01-02T00:00:00.000Z'],
    ])
    sessionFile(dir, 'kept', '2024-02-01T00:00:00.000Z')
    sessionFile(dir, 'new', '2024-01-04T00:00:00.000Z')
    rmSync(join(dir, 'gone.jsonl'))
    const expected = [
      ['kept', '2024-02-01T00:00:00.000Z'],
      ['new', '2024-01-04T00:00:00.000Z'],
    ]
    let lists = 0
    while (lists < 200 && JSON.stringify(await listed()) !== JSON.stringify(expected)) {
      lists++
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    expect(await listed()).toEqual(expected)
    expect(lists).toBeGreaterThan(0)
    catalog.close()
    // The catalog is saved on close: done before the directory is removed.
    await catalog.saveNow()
  })
})
