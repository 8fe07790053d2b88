import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { validateAirRewindParams, validateModeRewindParams } from './wire-validators.gen.js'

describe('the rewind methods’ generated params validators', () => {
  it('are what scripts/generate-extension-validators.mjs writes from wire-schema.ts', () => {
    const root = new URL('../../../', import.meta.url).pathname
    const check = spawnSync(process.execPath, ['scripts/generate-extension-validators.mjs', '--check'], {
      cwd: root,
      encoding: 'utf8',
    })
    expect(check.stderr).toBe('')
    expect(check.status).toBe(0)
  })

  it('accept the two wire shapes and refuse what the schema refuses, saying where', () => {
    expect(validateModeRewindParams({ sessionId: 's', messageId: 'm', mode: 'both', dryRun: true })).toBe(
      true,
    )
    expect(validateModeRewindParams({ sessionId: 's', messageId: 'm', mode: 'all' })).toBe(false)
    expect(validateModeRewindParams.errors?.map((e) => e.instancePath)).toEqual(['/mode'])
    expect(validateAirRewindParams({ sessionId: 's', beforeMessage: { messageId: 'm' } })).toBe(true)
    expect(
      validateAirRewindParams({ sessionId: 's', beforeMessage: { messageId: 'm', messageOccurrence: 0 } }),
    ).toBe(false)
  })
})
