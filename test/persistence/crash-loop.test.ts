import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)

describe('crash loop (SIGKILL at random moments)', () => {
  it('keeps every event a killed writer was told is durable, and the session loads after each kill', async () => {
    expect(existsSync('dist/persistence/index.js'), 'run `npm run build` first').toBe(true)
    const { stdout } = await run(process.execPath, ['scripts/stress-persistence.mjs', '6'], {
      timeout: 60_000,
    })
    const match = /crash loop: 6 rounds, (\d+) durable events all present, log at seq (\d+)/.exec(stdout)
    expect(match, stdout).not.toBeNull()
    expect(Number(match?.[1])).toBeGreaterThan(0)
    expect(Number(match?.[2])).toBeGreaterThanOrEqual(Number(match?.[1]))
  })

  it('two writers alternating on one session (taking the pen in turns), each killed at its own moment', async () => {
    const { stdout } = await run(process.execPath, ['scripts/stress-persistence.mjs', '4', '2'], {
      timeout: 60_000,
    })
    const match =
      /crash loop: 4 rounds, (\d+) durable events all present, log at seq (\d+), .*2 writers/.exec(stdout)
    expect(match, stdout).not.toBeNull()
    expect(Number(match?.[1])).toBeGreaterThan(0)
    expect(Number(match?.[2])).toBeGreaterThanOrEqual(Number(match?.[1]))
  })
})

describe('rewind crash loop (SIGKILL at random moments of rewinds)', () => {
  it('leaves the session as it was before the rewind in flight or after it, every branch whole, both files loadable', async () => {
    expect(existsSync('dist/persistence/index.js'), 'run `npm run build` first').toBe(true)
    const { stdout } = await run(process.execPath, ['scripts/stress-rewind.mjs', '8'], { timeout: 60_000 })
    const match = /rewind crash loop: 8 rounds, (\d+) rewinds checked, (\d+) killed in flight/.exec(stdout)
    expect(match, stdout).not.toBeNull()
    expect(Number(match?.[1])).toBeGreaterThan(0)
  })
})
