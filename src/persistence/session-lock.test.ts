import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

/** When set, the next lock-text write creates its file and then fails as a full disk does. */
const diskFull = vi.hoisted(() => ({ next: false }))

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>()
  const writeFileSync: typeof real.writeFileSync = (file, data, options) => {
    if (diskFull.next && typeof file === 'string' && file.endsWith('.tmp')) {
      diskFull.next = false
      real.writeFileSync(file, '', options)
      throw Object.assign(new Error(`ENOSPC: no space left on device, write '${file}'`), { code: 'ENOSPC' })
    }
    real.writeFileSync(file, data, options)
  }
  return { ...real, default: { ...real, writeFileSync }, writeFileSync }
})

const { acquireLock, releaseLock } = await import('./session-lock.js')

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-lock-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('acquireLock', () => {
  it('a lock write that fails on a full disk leaves no temp file behind and takes no lock', () => {
    const path = join(dir, 's.lock')
    diskFull.next = true
    expect(() => acquireLock(path, 's')).toThrow(/ENOSPC/)
    expect(readdirSync(dir)).toEqual([])
    acquireLock(path, 's')
    expect(readdirSync(dir)).toEqual(['s.lock'])
    releaseLock(path)
  })

  it('leaves a file it did not create alone', () => {
    const path = join(dir, 'other.lock')
    writeFileSync(join(dir, 'unrelated.tmp'), 'x')
    acquireLock(path, 'other')
    expect(readdirSync(dir).sort()).toEqual(['other.lock', 'unrelated.tmp'])
    releaseLock(path)
  })
})
