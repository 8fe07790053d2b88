import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { StorePaths } from './store-paths.js'
import { tidyStore } from './store-tidy.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-tidy-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

function tidy(): { info: string[]; warn: string[] } {
  const said = { info: [] as string[], warn: [] as string[] }
  tidyStore(new StorePaths(dir), {
    info: (message) => said.info.push(message),
    warn: (message) => said.warn.push(message),
  })
  return said
}

describe('tidyStore', () => {
  it('says at info level, never as a warning, that it removed what a killed process left', () => {
    writeFileSync(join(dir, 'killed.lock'), '999999999 12345\n')
    writeFileSync(join(dir, '.killed.999999999.0123456789ab.tmp'), 'partial')
    const said = tidy()
    expect(existsSync(join(dir, 'killed.lock'))).toBe(false)
    expect(existsSync(join(dir, '.killed.999999999.0123456789ab.tmp'))).toBe(false)
    expect(said.warn).toEqual([])
    expect(said.info).toHaveLength(2)
    expect(said.info).toEqual(
      expect.arrayContaining([
        expect.stringContaining('killed.lock'),
        expect.stringContaining('.killed.999999999.0123456789ab.tmp'),
      ]),
    )
  })

  it('still warns about a store directory others may write', () => {
    chmodSync(dir, 0o777)
    expect(tidy().warn).toEqual([expect.stringContaining('writable by others')])
  })
})
