import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import packageJson from '../../package.json' with { type: 'json' }
import { usage } from '../../src/process/cli-args.js'
import { CLI } from '../support/agent-process.js'
import { PROJECT_DIR } from '../support/project-dir.js'

function run(args: string[], input = '') {
  return spawnSync(process.execPath, [CLI, ...args], { input, encoding: 'utf8', timeout: 20_000 })
}

describe('the dsh-acp command', () => {
  it('--help prints usage on stdout and exits 0', () => {
    const result = run(['--help'])
    expect(result.status).toBe(0)
    expect(result.stdout).toContain('Usage: dsh-acp')
    expect(result.stdout).toContain('--store STORE')
    expect(result.stdout).toBe(usage())
  })

  it('--version prints the package version', () => {
    const result = run(['--version'])
    expect(result.status).toBe(0)
    expect(result.stdout.trim()).toBe(packageJson.version)
  })

  it.each([
    [['--bogus'], 'bogus'],
    [['frobnicate'], 'unknown command'],
    [['--log-level', 'loud'], '--log-level'],
    [['--memory', '--store', '/tmp/x'], 'exclude'],
    [['--max-line-bytes', '12'], '--max-line-bytes'],
    [['--fake-clock', 'yesterday'], '--fake-clock'],
    [['--max-steps', '0'], '--max-steps'],
    [['--context-window', 'big'], '--context-window'],
    [['--max-retries', '-1'], '--max-retries'],
    [['--request-timeout', '1.5'], '--request-timeout'],
  ])('bad arguments %j exit 2 with a message on stderr and nothing on stdout', (args, message) => {
    const result = run(args)
    expect(result.status).toBe(2)
    expect(result.stderr).toContain(message)
    expect(result.stdout).toBe('')
  })

  it('an unknown model fails at start with a clear message, nothing on stdout', () => {
    const result = run(['--memory', '--model', 'gpt-banana'])
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('unknown model')
    expect(result.stdout).toBe('')
  })

  it('serve answers on stdout and logs only on stderr; EOF exits 0', () => {
    const request = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: 1 },
    })
    const result = run(['--memory', '--log-level', 'debug'], `${request}\n`)
    expect(result.status).toBe(0)
    const lines = result.stdout.split('\n').filter((l) => l !== '')
    expect(lines.map((l) => JSON.parse(l))).toMatchObject([
      { jsonrpc: '2.0', id: 1, result: { protocolVersion: 1 } },
    ])
    expect(result.stderr).toContain('shutting down')
  })

  it('sessions prints the stored sessions as a lineage tree', () => {
    const store = mkdtempSync(join(tmpdir(), 'dsh-acp-cli-'))
    try {
      const lines = [
        { id: 1, method: 'initialize', params: { protocolVersion: 1 } },
        { id: 2, method: 'session/new', params: { cwd: PROJECT_DIR, mcpServers: [] } },
        {
          id: 3,
          method: 'session/prompt',
          params: { sessionId: 'ses_1', prompt: [{ type: 'text', text: 'hi' }] },
        },
        { id: 4, method: 'session/fork', params: { sessionId: 'ses_1', cwd: PROJECT_DIR } },
      ]
        .map((m) => `${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`)
        .join('')
      const serve = run(['--store', store, '--id-prefix', 'ses_'], lines)
      expect(serve.status).toBe(0)
      const result = run(['sessions', '--store', store])
      expect(result.status).toBe(0)
      const out = result.stdout.split('\n')
      expect(out[0]).toBe(`2 sessions in ${store}`)
      expect(out[1]).toMatch(/^ses_1 /)
      // The prompt may still run at EOF, which cancels it: the fork point depends on when.
      expect(out[2]).toMatch(/^└─ ses_2 .*forked at seq \d+/)
    } finally {
      rmSync(store, { recursive: true, force: true })
    }
  })
})
