import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { NotRegularFileError, nodeFileSystem } from './file-system.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-read-only-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('nodeFileSystem.open(path, "r"): a file read on its bare descriptor', () => {
  it('reads at positions, gives the stat it took at open, and refuses to write', async () => {
    const path = join(dir, 'a.jsonl')
    writeFileSync(path, 'hello world\n')
    const file = await nodeFileSystem.open(path, 'r')
    expect(file.opened).toMatchObject({ size: 12, isFile: true })
    expect(await file.stat()).toEqual(file.opened)
    const buffer = Buffer.alloc(5)
    expect(await file.read(buffer, 0, 5, 6)).toBe(5)
    expect(buffer.toString()).toBe('world')
    expect(file.readSync(buffer, 0, 5, 0)).toBe(5)
    expect(buffer.toString()).toBe('hello')
    await expect(file.write(buffer, 0, 5, 0)).rejects.toMatchObject({ code: 'EBADF' })
    await expect(file.writev([buffer], 0)).rejects.toMatchObject({ code: 'EBADF' })
    await expect(file.truncate(0)).rejects.toMatchObject({ code: 'EBADF' })
    await file.close()
  })

  it('closes once, after the reads in flight; nothing reads through it once close began', async () => {
    const path = join(dir, 'b.jsonl')
    writeFileSync(path, 'x'.repeat(1 << 20))
    const file = await nodeFileSystem.open(path, 'r')
    const reads = Array.from({ length: 8 }, (_, i) => file.read(Buffer.alloc(1 << 16), 0, 1 << 16, i << 16))
    const closed = file.close()
    expect(file.close()).toBe(closed)
    await expect(file.read(Buffer.alloc(1), 0, 1, 0)).rejects.toMatchObject({ code: 'EBADF' })
    expect(() => file.readSync(Buffer.alloc(1), 0, 1, 0)).toThrow(/EBADF/)
    expect(await Promise.all(reads)).toEqual(reads.map(() => 1 << 16))
    await closed
  })

  it('refuses what is not a regular file, and reports a missing one as ENOENT', async () => {
    mkdirSync(join(dir, 'd.jsonl'))
    await expect(nodeFileSystem.open(join(dir, 'd.jsonl'), 'r')).rejects.toBeInstanceOf(NotRegularFileError)
    writeFileSync(join(dir, 'target'), '{}\n')
    symlinkSync(join(dir, 'target'), join(dir, 'l.jsonl'))
    await expect(nodeFileSystem.open(join(dir, 'l.jsonl'), 'r')).rejects.toBeInstanceOf(NotRegularFileError)
    execFileSync('mkfifo', [join(dir, 'f.jsonl')])
    await expect(nodeFileSystem.open(join(dir, 'f.jsonl'), 'r')).rejects.toMatchObject({ kind: 'a FIFO' })
    await expect(nodeFileSystem.open(join(dir, 'none.jsonl'), 'r')).rejects.toMatchObject({ code: 'ENOENT' })
  })
})
