import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { NotRegularFileError, nodeFileSystem } from './file-system.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-descriptor-'))
  dirs.push(dir)
  return dir
}

describe('the synchronous open (nodeFileSystem.now)', () => {
  it('creates a file once (wx), writes it both ways, syncs it, and refuses every call after close', async () => {
    const now = nodeFileSystem.now
    if (now === undefined) throw new Error('the real file system offers synchronous calls')
    const path = join(scratch(), 'f')
    const file = now.open(path, 'wx', 0o600)
    expect(file.opened).toMatchObject({ size: 0, isFile: true })
    expect(() => now.open(path, 'wx')).toThrow(expect.objectContaining({ code: 'EEXIST' }))
    expect(file.writeSync(Buffer.from('ab'), 0, 2, 0)).toBe(2)
    const pending = file.writev([Buffer.from('cd'), Buffer.from('ef')], 2)
    const closing = (async () => {
      await pending
      await file.datasync()
      await file.close()
    })()
    await closing
    expect(readFileSync(path, 'utf8')).toBe('abcdef')
    await expect(file.write(Buffer.from('x'), 0, 1, 0)).rejects.toMatchObject({ code: 'EBADF' })
    expect(() => file.readSync(Buffer.alloc(1), 0, 1, 0)).toThrow(expect.objectContaining({ code: 'EBADF' }))
    // close happens once: a second call is the same promise, and does not fail.
    await expect(file.close()).resolves.toBeUndefined()
  })

  it('close waits for the calls in flight', async () => {
    const now = nodeFileSystem.now
    if (now === undefined) throw new Error('the real file system offers synchronous calls')
    const path = join(scratch(), 'f')
    const file = now.open(path, 'wx')
    const write = file.write(Buffer.from('hello'), 0, 5, 0)
    await file.close()
    await expect(write).resolves.toBe(5)
    expect(readFileSync(path, 'utf8')).toBe('hello')
  })

  it('refuses a directory as not a regular file, and reports a missing file', () => {
    const now = nodeFileSystem.now
    if (now === undefined) throw new Error('the real file system offers synchronous calls')
    const dir = scratch()
    expect(() => now.open(dir, 'r')).toThrow(NotRegularFileError)
    expect(() => now.open(join(dir, 'missing'), 'r')).toThrow(expect.objectContaining({ code: 'ENOENT' }))
  })
})
