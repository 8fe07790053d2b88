import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FileSystem, nodeFileSystem, StorePaths } from '../../src/persistence/index.js'
import { SessionErrorCode } from '../../src/session/index.js'
import { startStore, tempDir } from '../support/session-store.js'

const BAD_IDS = ['../x', 'a/b', '', 'x'.repeat(200), 'nul\0byte', '..', '/etc/passwd', 'a\\b', '.hidden']

let store: ReturnType<typeof tempDir>
beforeAll(() => {
  store = tempDir()
})
afterAll(() => store.cleanup())

/** A file system that records every path it is asked about. */
function recordingFs(): { fs: FileSystem; paths: string[] } {
  const paths: string[] = []
  const seen = (...touched: string[]) => {
    paths.push(...touched)
  }
  const fs: FileSystem = {
    open: (path, flags, mode) => {
      seen(path)
      return nodeFileSystem.open(path, flags, mode)
    },
    rename: (from, to) => {
      seen(from, to)
      return nodeFileSystem.rename(from, to)
    },
    link: (from, to) => {
      seen(from, to)
      return nodeFileSystem.link(from, to)
    },
    unlink: (path) => {
      seen(path)
      return nodeFileSystem.unlink(path)
    },
    syncDir: (path) => {
      seen(path)
      return nodeFileSystem.syncDir(path)
    },
    readdir: (path) => {
      seen(path)
      return nodeFileSystem.readdir(path)
    },
    stat: (path) => {
      seen(path)
      return nodeFileSystem.stat(path)
    },
  }
  return { fs, paths }
}

const invalid = expect.objectContaining({ code: SessionErrorCode.INVALID_SESSION_ID })

describe('session ids and paths', () => {
  it.each(BAD_IDS.map((id) => [JSON.stringify(id).slice(0, 40), id]))(
    'rejects %s before touching the disk',
    async (_, id) => {
      const dir = join(store.dir, 'ids')
      const recording = recordingFs()
      const s = await startStore(dir, { fs: recording.fs })
      const before = readdirSync(dir)
      recording.paths.length = 0
      expect(() => s.sessions.create(id)).toThrow(invalid)
      await expect(s.sessions.load(id)).rejects.toEqual(invalid)
      await expect(s.sessions.delete(id)).rejects.toEqual(invalid)
      await expect(s.persistence.open(id)).rejects.toEqual(invalid)
      await expect(s.persistence.exists(id)).rejects.toEqual(invalid)
      await expect(s.persistence.remove(id)).rejects.toEqual(invalid)
      const parent = s.sessions.create()
      await expect(s.sessions.forkDurable(parent, undefined, id)).rejects.toEqual(invalid)
      expect(recording.paths.filter((p) => !p.includes(parent.id) && p !== dir)).toEqual([])
      expect(() => new StorePaths(dir).sessionFile(id)).toThrow(invalid)
      await s.sessions.delete(parent.id)
      expect(readdirSync(dir)).toEqual(before)
      await s.stop()
    },
  )

  it('keeps every path inside the store directory', () => {
    const paths = new StorePaths(join(store.dir, 'a', '..', 'b'))
    expect(paths.dir).toBe(join(store.dir, 'b'))
    expect(paths.sessionFile('ok_id-1')).toBe(join(store.dir, 'b', 'ok_id-1.jsonl'))
    expect(paths.lockFile('ok_id-1')).toBe(join(store.dir, 'b', 'ok_id-1.lock'))
    expect(paths.tempFile('ok_id-1').startsWith(join(store.dir, 'b', '.ok_id-1.'))).toBe(true)
  })
})
