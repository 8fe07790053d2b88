import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)

describe('fuzzing the built binary with hostile frames (bounded; `npm run fuzz [frames] [seed]` runs longer)', () => {
  it('2,000 seeded frames: no exit, every well-formed request answered exactly once, every session loadable', async () => {
    expect(existsSync('dist/cli.js'), 'run `npm run build` first').toBe(true)
    const result = await run(process.execPath, ['scripts/fuzz.mjs', '2000', '20261130'], {
      timeout: 240_000,
      maxBuffer: 1 << 24,
    }).catch((error: { stdout?: string; stderr?: string }) => error)
    const match =
      /fuzz: 2000 frames \(seed 20261130\), (\d+) of (\d+) requests answered exactly once, (\d+) of (\d+) sessions loadable, exit 0/.exec(
        result.stdout ?? '',
      )
    expect(match, `${result.stdout}\n${result.stderr}`).not.toBeNull()
    expect(result.stderr ?? '').not.toContain('fuzz found')
    const [answered, requests, loadable, stored] = (match as RegExpExecArray).slice(1).map(Number)
    expect(answered).toBe(requests)
    expect(requests).toBeGreaterThan(1000)
    expect(loadable).toBe(stored)
    expect(stored).toBeGreaterThan(3)
  })
})
