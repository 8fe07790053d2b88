import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { CLI, HERMETIC_ENV } from '../support/agent-process.js'
import { freshSchema, sharedPostgres } from '../support/postgres/test-database.js'
import { tempDir } from '../support/session-store.js'
import { fillSampleStore, storeFiles } from '../support/store-copy/sample-store.js'

// The built binary's `store copy`: killed with SIGKILL while it copies, run again it finishes; the
// copy back out of the database gives the same files.

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const c of cleanups.splice(0)) c()
})
beforeAll(() => sharedPostgres(), 120_000)

function dir(): string {
  const made = tempDir('dsh-copy-e2e-')
  cleanups.push(made.cleanup)
  return made.dir
}

/** Runs `dsh-acp store ...`; `killAfter` copied lines, SIGKILLs it. Resolves its stdout lines and exit. */
function store(args: string[], killAfter?: number) {
  const child = spawn(process.execPath, [CLI, 'store', ...args], {
    env: { ...process.env, ...HERMETIC_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  let stderr = ''
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line)
    if (killAfter !== undefined && lines.filter((l) => l.startsWith('copied ')).length === killAfter)
      child.kill('SIGKILL')
  })
  return new Promise<{ lines: string[]; code: number | null; signal: string | null; stderr: string }>(
    (resolve) => child.on('close', (code, signal) => resolve({ lines, code, signal, stderr })),
  )
}

describe('dsh-acp store copy (built binary)', () => {
  it('finishes a copy killed midway, then copies back byte-identical', async () => {
    const source = dir()
    await fillSampleStore(source, 40)
    const total = 44
    const url = await freshSchema()
    const killed = await store(['copy', source, url], 5)
    expect(killed.lines.filter((l) => l.startsWith('copied ')).length).toBeGreaterThanOrEqual(5)
    const resumed = await store(['copy', source, url])
    expect(resumed.stderr).toBe('')
    expect(resumed.code).toBe(0)
    const present = resumed.lines.filter((l) => l.startsWith('present ')).length
    const copied = resumed.lines.filter((l) => l.startsWith('copied ')).length
    expect(present).toBeGreaterThanOrEqual(5)
    expect(present + copied).toBe(total)
    expect(resumed.lines.every((l) => !l.startsWith('FAILED'))).toBe(true)

    const back = dir()
    const out = await store(['copy', url, back])
    expect(out.code).toBe(0)
    expect(out.lines.at(-1)).toMatch(new RegExp(`^${total} copied \\(`))
    expect(storeFiles(back)).toEqual(storeFiles(source))
    const help = await store(['--help'])
    expect(help.lines[0]).toContain('dsh-acp store copy FROM TO')
  })
})
