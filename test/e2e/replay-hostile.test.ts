import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AgentProcess, CLI } from '../support/agent-process.js'
import { runReplay } from '../support/run-replay.js'

/**
 * Issue 28 #12: hostile input to `dsh-acp replay`. A line nested 100,000 deep is an input error
 * (exit 2, naming the line), a catastrophic `--rules` pattern on ordinary 44-character strings
 * finishes (RE2), and a long transcript replays in time linear in its length: the tests' own
 * timeouts are the bound.
 */

let dir: string
let transcript: string
const AGENT = [process.execPath, CLI, '--memory']

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-acp-replay-hostile-'))
  transcript = join(dir, 'memory-agent.jsonl')
  // A cwd whose path is at least 44 characters: the strings `^(.+)+#` backtracks on forever.
  const cwd = join(dir, 'project-directory-with-a-longish-name-x')
  mkdirSync(cwd)
  const client = new AgentProcess({ command: [CLI, 'record', '--out', transcript, '--', ...AGENT] })
  await client.initialize()
  const { sessionId } = await client.agent.request('session/new', { cwd, mcpServers: [] })
  await client.agent.request('session/list', {})
  expect(sessionId.length).toBeGreaterThan(0)
  expect(await client.stop()).toBe(0)
  client.cleanup()
  expect(readFileSync(transcript, 'utf8')).toContain(cwd)
  expect(cwd.length).toBeGreaterThanOrEqual(44)
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('dsh-acp replay on hostile input', () => {
  it('a 20,000-line transcript replays equal, its memory (max RSS) bounded', {
    timeout: 120_000,
  }, async () => {
    const long = join(dir, 'long.jsonl')
    const client = new AgentProcess({ command: [CLI, 'record', '--out', long, '--', ...AGENT] })
    await client.initialize()
    const ROUND_TRIPS = 10_000
    for (let i = 0; i < ROUND_TRIPS; i += 100) {
      await Promise.all(Array.from({ length: 100 }, () => client.agent.request('session/list', {})))
    }
    expect(await client.stop()).toBe(0)
    client.cleanup()
    expect(readFileSync(long, 'utf8').trim().split('\n').length).toBe(2 * ROUND_TRIPS + 2)
    // The replay reports its own peak memory on exit (node's --require runs before the CLI).
    const probe = join(dir, 'max-rss.cjs')
    writeFileSync(
      probe,
      "process.on('exit', () => process.stderr.write('max-rss-kb ' + process.resourceUsage().maxRSS + '\\n'))\n",
    )
    const child = spawn(process.execPath, ['--require', probe, CLI, 'replay', long, '--', ...AGENT], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString()
    })
    const status = await new Promise((done) => child.once('close', done))
    expect(status, stderr).toBe(0)
    const rss = Number(/max-rss-kb (\d+)/.exec(stderr)?.[1])
    expect(rss).toBeGreaterThan(0)
    expect(rss).toBeLessThan(1024 * 1024)
  })

  it('comparing two long, much-changed sequences stays within bounded memory (max RSS)', {
    timeout: 120_000,
  }, async () => {
    // 60,000 agent messages a side with a change every 24: more differences than the alignment
    // searches, at the size a long transcript has between its equal prefix and suffix.
    const script = [
      `import { align } from ${JSON.stringify(pathToFileURL(join(dirname(CLI), 'lib/align.js')).href)}`,
      "const a = Array.from({ length: 60000 }, (_, i) => 'm' + i)",
      "const b = a.map((x, i) => (i % 24 === 5 ? x + '!' : x))",
      'const steps = align(a, b)',
      'process.stdout.write(JSON.stringify({ steps: steps.length, rss: process.resourceUsage().maxRSS }))',
    ].join('\n')
    const file = join(dir, 'align-probe.mjs')
    writeFileSync(file, script)
    const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString()
    })
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString()
    })
    expect(await new Promise((done) => child.once('close', done)), stderr).toBe(0)
    const { steps, rss } = JSON.parse(stdout) as { steps: number; rss: number }
    expect(steps).toBeGreaterThanOrEqual(60_000)
    expect(rss).toBeLessThan(512 * 1024)
  })

  it('replays the recording equal with a catastrophic --rules pattern', async () => {
    const rules = join(dir, 'rules.json')
    writeFileSync(rules, JSON.stringify({ rules: [{ pattern: '^(.+)+#', replace: 'never' }] }))
    const run = await runReplay(['--rules', rules, transcript, '--', ...AGENT])
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
  })

  it('a rules pattern RE2 cannot run is a usage error naming the rule', async () => {
    const rules = join(dir, 'backref.json')
    writeFileSync(rules, JSON.stringify({ rules: [{ pattern: '(a)\\1', replace: '' }] }))
    const run = await runReplay(['--rules', rules, transcript, '--', ...AGENT])
    expect(run.status).toBe(2)
    expect(run.stderr).toMatch(
      /backref\.json\[0\]: bad pattern \(RE2 syntax: no backreferences or lookaround\)/,
    )
  })

  it('a line nested 100,000 deep exits 2 with a message naming the line', async () => {
    const deep = join(dir, 'deep.jsonl')
    const depth = 100_000
    const lines = [
      JSON.stringify({
        dir: 'in',
        msg: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } },
      }),
      `{"dir":"in","msg":{"jsonrpc":"2.0","id":2,"method":"session/list","params":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}}`,
    ]
    writeFileSync(deep, `${lines.join('\n')}\n`)
    const run = await runReplay([deep, '--', ...AGENT])
    expect(run.status).toBe(2)
    expect(run.stderr).toBe('dsh-acp replay: transcript line 2: nested more than 512 levels deep\n')
  })
})
