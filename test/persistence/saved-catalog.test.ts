import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { decodeCatalog } from '../../src/persistence/catalog/catalog-file.js'
import { SessionCatalog } from '../../src/persistence/catalog/session-catalog.js'
import { type FileSystem, nodeFileSystem } from '../../src/persistence/fs/file-system.js'
import { StorePaths } from '../../src/persistence/store-paths.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function storeDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-saved-catalog-'))
  dirs.push(dir)
  return dir
}

function line(value: unknown): string {
  return `${JSON.stringify(value)}\n`
}

function sessionFile(dir: string, id: string, prompt: string, time: string): void {
  const header = { version: 1, id, createdAt: '2024-01-01T00:00:00.000Z', cwd: '/w' }
  writeFileSync(
    join(dir, `${id}.jsonl`),
    line(header) +
      line({ seq: 1, type: 'turn/start', time, data: { turn: 1 } }) +
      line({
        seq: 2,
        type: 'user/message',
        time,
        data: { turn: 1, content: [{ type: 'text', text: prompt }] },
      }),
  )
}

/** The real file system, counting the session files opened for reading. */
function countingFs(): { fs: FileSystem; opened: string[] } {
  const opened: string[] = []
  const fs: FileSystem = {
    ...nodeFileSystem,
    open(path, flags, mode) {
      if (flags === 'r' && path.endsWith('.jsonl')) opened.push(path)
      return nodeFileSystem.open(path, flags, mode)
    },
  }
  return { fs, opened }
}

/** The real file system, recording every write a save makes: temp files created, renames done. */
function savingFs(): { fs: FileSystem; created: string[]; renamedTo: string[] } {
  const created: string[] = []
  const renamedTo: string[] = []
  const fs: FileSystem = {
    ...nodeFileSystem,
    open(path, flags, mode) {
      if (flags === 'wx') created.push(basename(path))
      return nodeFileSystem.open(path, flags, mode)
    },
    rename(from, to) {
      renamedTo.push(basename(to))
      return nodeFileSystem.rename(from, to)
    },
  }
  return { fs, created, renamedTo }
}

async function listed(catalog: SessionCatalog) {
  return (await catalog.list({})).sessions.map(({ sessionId, title, updatedAt }) => ({
    sessionId,
    title,
    updatedAt,
  }))
}

/** A catalog as a new process makes one: lists, then closes (which saves), and is idle. */
async function processLifetime(dir: string, fs: FileSystem = nodeFileSystem) {
  const catalog = new SessionCatalog(fs, new StorePaths(dir), () => {})
  catalog.open()
  const sessions = await listed(catalog)
  catalog.close()
  await catalog.saveNow()
  return sessions
}

describe('the catalog a process saves', () => {
  it('lets the next process list unchanged sessions without reading their files', async () => {
    const dir = storeDir()
    sessionFile(dir, 'a', 'first question', '2024-01-02T00:00:00.000Z')
    sessionFile(dir, 'b', 'second question', '2024-01-03T00:00:00.000Z')
    const first = await processLifetime(dir)
    expect(first.map((s) => s.sessionId)).toEqual(['b', 'a'])
    const saved = join(dir, '.catalog.json')
    expect(statSync(saved).mode & 0o777).toBe(0o600)
    expect([...decodeCatalog(readFileSync(saved, 'utf8')).keys()].sort()).toEqual(['a', 'b'])

    const { fs, opened } = countingFs()
    expect(await processLifetime(dir, fs)).toEqual(first)
    expect(opened).toEqual([])
    expect(readdirSync(dir).sort()).toEqual(['.catalog.json', 'a.jsonl', 'b.jsonl'])
  })

  it('reads again exactly the files that changed, appeared or went since it was saved', async () => {
    const dir = storeDir()
    sessionFile(dir, 'a', 'first question', '2024-01-02T00:00:00.000Z')
    sessionFile(dir, 'b', 'second question', '2024-01-03T00:00:00.000Z')
    sessionFile(dir, 'c', 'third question', '2024-01-04T00:00:00.000Z')
    await processLifetime(dir)
    appendFileSync(
      join(dir, 'a.jsonl'),
      line({ seq: 3, type: 'session/title', time: '2024-02-01T00:00:00.000Z', data: { title: 'Renamed' } }),
    )
    rmSync(join(dir, 'b.jsonl'))
    sessionFile(dir, 'd', 'fourth question', '2024-01-05T00:00:00.000Z')
    const { fs, opened } = countingFs()
    expect(await processLifetime(dir, fs)).toEqual([
      { sessionId: 'a', title: 'Renamed', updatedAt: '2024-02-01T00:00:00.000Z' },
      { sessionId: 'd', title: 'fourth question', updatedAt: '2024-01-05T00:00:00.000Z' },
      { sessionId: 'c', title: 'third question', updatedAt: '2024-01-04T00:00:00.000Z' },
    ])
    expect(opened.map((path) => path.slice(dir.length + 1)).sort()).toEqual(['a.jsonl', 'd.jsonl'])
    expect([...decodeCatalog(readFileSync(join(dir, '.catalog.json'), 'utf8')).keys()].sort()).toEqual([
      'a',
      'c',
      'd',
    ])
  })

  it('is ignored, with a warning, when it is not a catalog; entries that are not valid are read again', async () => {
    const dir = storeDir()
    sessionFile(dir, 'a', 'first question', '2024-01-02T00:00:00.000Z')
    sessionFile(dir, 'b', 'second question', '2024-01-03T00:00:00.000Z')
    const expected = await processLifetime(dir)
    const saved = join(dir, '.catalog.json')
    const text = readFileSync(saved, 'utf8')
    for (const broken of [
      '',
      '{"version":1,"entries":',
      '[]',
      // The catalog before archive states (version 1), and one from a later dsh-acp.
      '{"version":1,"entries":[]}',
      '{"version":3,"entries":[]}',
      '\0'.repeat(64),
    ]) {
      writeFileSync(saved, broken)
      const warnings: string[] = []
      const catalog = new SessionCatalog(nodeFileSystem, new StorePaths(dir), (message) =>
        warnings.push(message),
      )
      expect(await listed(catalog)).toEqual(expected)
      expect(warnings).toEqual([expect.stringContaining(`ignoring the catalog ${saved}`)])
      catalog.close()
      await catalog.saveNow()
    }
    // A lying entry (a title its file does not hold) with another stat, and a malformed one.
    const catalog = JSON.parse(text) as {
      entries: { stat: { size: number }; summary: { title?: unknown } }[]
    }
    const [first, second] = catalog.entries
    if (!first || !second) throw new Error('two entries expected')
    first.summary.title = 'not in the file'
    first.stat.size += 1
    second.summary.title = 42
    writeFileSync(saved, JSON.stringify(catalog))
    const { fs, opened } = countingFs()
    expect(await processLifetime(dir, fs)).toEqual(expected)
    expect(opened).toHaveLength(2)
  })

  it('is never followed through a symlink, and a save replaces the link, not its target', async () => {
    const dir = storeDir()
    sessionFile(dir, 'a', 'first question', '2024-01-02T00:00:00.000Z')
    const expected = await processLifetime(dir)
    const elsewhere = join(storeDir(), 'planted.json')
    renameSync(join(dir, '.catalog.json'), elsewhere)
    const planted = readFileSync(elsewhere, 'utf8')
    symlinkSync(elsewhere, join(dir, '.catalog.json'))
    const warnings: string[] = []
    const { fs, opened } = countingFs()
    const catalog = new SessionCatalog(fs, new StorePaths(dir), (message) => warnings.push(message))
    expect(await listed(catalog)).toEqual(expected)
    expect(opened).toHaveLength(1)
    expect(warnings).toEqual([expect.stringContaining('ignoring the catalog')])
    catalog.close()
    await catalog.saveNow()
    expect(readFileSync(elsewhere, 'utf8')).toBe(planted)
    expect(statSync(join(dir, '.catalog.json')).isFile()).toBe(true)
  })

  it('a store it cannot be saved in still lists, and says so once while saving keeps failing', async () => {
    const dir = storeDir()
    const readOnly: FileSystem = {
      ...nodeFileSystem,
      open(path, flags, mode) {
        if (flags === 'wx')
          return Promise.reject(Object.assign(new Error(`EROFS: ${path}`), { code: 'EROFS' }))
        return nodeFileSystem.open(path, flags, mode)
      },
    }
    const warnings: string[] = []
    const catalog = new SessionCatalog(readOnly, new StorePaths(dir), (message) => warnings.push(message))
    for (const [i, id] of ['a', 'b', 'c'].entries()) {
      sessionFile(dir, id, `question ${id}`, `2024-01-0${i + 2}T00:00:00.000Z`)
      expect((await listed(catalog)).map((s) => s.sessionId)).toHaveLength(i + 1)
      await catalog.saveNow()
    }
    expect(warnings).toEqual([expect.stringContaining('could not save the catalog')])
    expect(existsSync(join(dir, '.catalog.json'))).toBe(false)
    catalog.close()
  })

  // A process's lifetime ends when its last save has settled (`saveNow`): what it has not written
  // by then, it does not write.
  it('is not saved when nothing changed, and a store without one still lists', async () => {
    const dir = storeDir()
    const empty = savingFs()
    expect(await processLifetime(dir, empty.fs)).toEqual([])
    expect(empty).toMatchObject({ created: [], renamedTo: [] })
    expect(existsSync(join(dir, '.catalog.json'))).toBe(false)

    sessionFile(dir, 'a', 'first question', '2024-01-02T00:00:00.000Z')
    const changed = savingFs()
    await processLifetime(dir, changed.fs)
    expect(changed.created).toHaveLength(1)
    expect(changed.renamedTo).toEqual(['.catalog.json'])
    const saved = readFileSync(join(dir, '.catalog.json'), 'utf8')

    const unchanged = savingFs()
    expect((await processLifetime(dir, unchanged.fs)).map((s) => s.sessionId)).toEqual(['a'])
    expect(unchanged).toMatchObject({ created: [], renamedTo: [] })
    expect(readFileSync(join(dir, '.catalog.json'), 'utf8')).toBe(saved)
  })
})
