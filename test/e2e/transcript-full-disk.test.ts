import { spawnSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { AgentProcess, CLI } from '../support/agent-process.js'

/** /dev/full accepts an open and fails every write with ENOSPC: a disk that filled up. */
const FULL = '/dev/full'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-acp-transcript-'))
  dirs.push(dir)
  return dir
}

/** Twenty requests that each need an answer, and a prompt: every one must still be answered. */
async function exercise(agent: AgentProcess): Promise<void> {
  await agent.initialize()
  const { sessionId } = await agent.agent.request('session/new', { cwd: agent.cwd, mcpServers: [] })
  const lists = await Promise.all(Array.from({ length: 20 }, () => agent.agent.request('session/list', {})))
  expect(lists.every((l) => l.sessions.length === 1)).toBe(true)
  const answer = await agent.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'still here?' }],
  })
  expect(answer.stopReason).toBe('end_turn')
}

describe.skipIf(!existsSync(FULL))('a transcript on a full disk', () => {
  it('--transcript: recording stops with one warning, and serving goes on', async () => {
    const agent = new AgentProcess({ args: ['--transcript', FULL] })
    await exercise(agent)
    expect(await agent.stop()).toBe(0)
    agent.cleanup()
    const warnings = agent.stderr.split('\n').filter((line) => line.includes('transcript stopped recording'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('ENOSPC')
  })

  it('record --out: recording stops with one warning, and the proxy goes on', async () => {
    const agent = new AgentProcess({
      command: [
        CLI,
        'record',
        '--out',
        FULL,
        '--',
        process.execPath,
        CLI,
        '--memory',
        '--log-level',
        'error',
      ],
    })
    await exercise(agent)
    expect(await agent.stop()).toBe(0)
    agent.cleanup()
    const warnings = agent.stderr.split('\n').filter((line) => line.includes('recording stopped'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('ENOSPC')
  })
})

describe('the transcript file itself', () => {
  it('record --out refuses a symbolic link and writes nothing through it', async () => {
    const dir = tempDir()
    const target = join(dir, 'elsewhere.jsonl')
    writeFileSync(target, '')
    const link = join(dir, 'out.jsonl')
    symlinkSync(target, link)
    const run = spawnSync(
      process.execPath,
      [CLI, 'record', '--out', link, '--', process.execPath, CLI, '--memory'],
      {
        input: '',
        encoding: 'utf8',
      },
    )
    expect(run.status).toBe(2)
    expect(run.stderr).toMatch(/cannot record to .*out\.jsonl: it is a symbolic link/)
    expect(readFileSync(target, 'utf8')).toBe('')
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
  })

  it('--transcript refuses a symbolic link too', async () => {
    const dir = tempDir()
    const link = join(dir, 'out.jsonl')
    symlinkSync(join(dir, 'elsewhere.jsonl'), link)
    const run = spawnSync(process.execPath, [CLI, '--memory', '--transcript', link], {
      input: '',
      encoding: 'utf8',
    })
    expect(run.status).not.toBe(0)
    expect(run.stderr).toMatch(/cannot record to .*out\.jsonl: it is a symbolic link/)
    expect(existsSync(join(dir, 'elsewhere.jsonl'))).toBe(false)
  })

  it('a new transcript is 0600, and an existing one others could read becomes 0600', async () => {
    const dir = tempDir()
    const fresh = join(dir, 'fresh.jsonl')
    const shared = join(dir, 'shared.jsonl')
    writeFileSync(shared, '')
    chmodSync(shared, 0o666)
    for (const out of [fresh, shared]) {
      const agent = new AgentProcess({
        command: [
          CLI,
          'record',
          '--out',
          out,
          '--',
          process.execPath,
          CLI,
          '--memory',
          '--log-level',
          'error',
        ],
      })
      await agent.initialize()
      expect(await agent.stop()).toBe(0)
      agent.cleanup()
      expect(statSync(out).mode & 0o777).toBe(0o600)
      expect(readFileSync(out, 'utf8')).toContain('"initialize"')
    }
  })
})
