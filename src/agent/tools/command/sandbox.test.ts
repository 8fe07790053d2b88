import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createRunCommandTool } from './run-command.js'
import { CommandSandbox } from './sandbox.js'

const usable = (await new CommandSandbox().probe()).sandboxed
let base: string

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-sandbox-unit-')))
})
afterEach(() => rmSync(base, { recursive: true, force: true }))

async function run(sandbox: CommandSandbox, command: string, cwd: string, additional: string[] = []) {
  const tool = createRunCommandTool(sandbox)
  const result = await tool.run(
    { command: `exec 2>&1; ${command}` },
    {
      sessionId: 'ses_1',
      cwd,
      callId: 'c1',
      turn: 1,
      client: {},
      signal: new AbortController().signal,
      progress: () => {},
      additionalDirectories: additional,
    },
  )
  return String(result.output)
}

describe.skipIf(!usable)('the bubblewrap confinement', () => {
  it('keeps a cwd inside a hidden directory writable, and the rest of that directory hidden', async () => {
    const cwd = join(base, 'data', 'project')
    mkdirSync(cwd, { recursive: true })
    writeFileSync(join(base, 'data', 'secret.txt'), 'hidden-value')
    const sandbox = new CommandSandbox({ hidden: [join(base, 'data')] })
    const output = await run(
      sandbox,
      'cat ../secret.txt || echo no-secret; echo x > mine.txt && echo wrote',
      cwd,
    )
    expect(output).not.toContain('hidden-value')
    expect(output).toContain('no-secret')
    expect(output).toContain('wrote')
    expect(readFileSync(join(cwd, 'mine.txt'), 'utf8')).toBe('x\n')
  })

  it('lets a command write in the additional directories, and hides a file inside cwd', async () => {
    const cwd = join(base, 'project')
    const extra = join(base, 'extra')
    mkdirSync(cwd)
    mkdirSync(extra)
    writeFileSync(join(cwd, 'credentials.json'), 'key-value')
    const sandbox = new CommandSandbox({ hidden: [join(cwd, 'credentials.json')] })
    const output = await run(
      sandbox,
      `cat credentials.json; echo e > ${extra}/e.txt && echo wrote-extra`,
      cwd,
      [extra],
    )
    expect(output).not.toContain('key-value')
    expect(output).toContain('wrote-extra')
    expect(readFileSync(join(extra, 'e.txt'), 'utf8')).toBe('e\n')
    expect(readFileSync(join(cwd, 'credentials.json'), 'utf8')).toBe('key-value')
  })
})

describe('the sandbox probe', () => {
  it('tells its answer once, to whoever asked first, however often it is asked', async () => {
    const told: unknown[] = []
    const sandbox = new CommandSandbox({
      mode: 'auto',
      bwrap: '/nonexistent/bwrap',
      onProbed: (s) => told.push(s),
    })
    const first = await Promise.all([sandbox.probe(), sandbox.probe()])
    await sandbox.probe()
    expect(told).toEqual([first[0]])
    expect(first[1]).toBe(first[0])
  })
})
