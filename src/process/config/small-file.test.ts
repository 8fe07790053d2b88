import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MAX_USER_FILE_BYTES, readSmallFile } from './small-file.js'

const dir = () => mkdtempSync(join(tmpdir(), 'dsh-acp-small-'))

describe('reading a user file: only a small regular file, never blocking', () => {
  it('reads a regular file (through a symbolic link too) and calls a missing one absent', () => {
    const d = dir()
    writeFileSync(join(d, 'a.json'), '{"x":1}')
    symlinkSync(join(d, 'a.json'), join(d, 'link.json'))
    expect(readSmallFile(join(d, 'a.json'))).toMatchObject({ state: 'read', text: '{"x":1}' })
    expect(readSmallFile(join(d, 'link.json'))).toMatchObject({ state: 'read', text: '{"x":1}' })
    expect(readSmallFile(join(d, 'none.json'))).toEqual({ state: 'absent' })
  })

  it('refuses a FIFO, a device, a directory and a file over the limit, saying which', () => {
    const d = dir()
    execFileSync('mkfifo', [join(d, 'fifo')])
    mkdirSync(join(d, 'sub'))
    writeFileSync(join(d, 'big'), '')
    truncateSync(join(d, 'big'), MAX_USER_FILE_BYTES + 1)
    writeFileSync(join(d, 'edge'), '')
    truncateSync(join(d, 'edge'), MAX_USER_FILE_BYTES)
    expect(readSmallFile(join(d, 'fifo'))).toEqual({
      state: 'refused',
      reason: 'is a named pipe (FIFO), not a regular file: not read',
    })
    expect(readSmallFile('/dev/zero')).toMatchObject({
      state: 'refused',
      reason: expect.stringContaining('a device'),
    })
    expect(readSmallFile(join(d, 'sub'))).toMatchObject({ reason: expect.stringContaining('a directory') })
    expect(readSmallFile(join(d, 'big'))).toMatchObject({
      reason: expect.stringContaining('larger than the limit'),
    })
    expect(readSmallFile(join(d, 'edge')).state).toBe('read')
  })
})
