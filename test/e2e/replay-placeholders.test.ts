import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AgentProcess, CLI } from '../support/agent-process.js'
import { runReplay } from '../support/run-replay.js'

/**
 * `dsh-acp replay --set NAME=VALUE`: a transcript recorded in one project directory, with that
 * directory written as `<project>`, replays against dsh-acp (which refuses a cwd that does not
 * exist) in another real directory: the client's messages carry VALUE, the agent's answers compare
 * as `<project>`, and `--update` writes `<project>` back.
 */

let dir: string
let transcript: string
const AGENT = [process.execPath, CLI, '--memory', '--log-level', 'error']

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-acp-replay-set-'))
  const recordedIn = join(dir, 'recorded-project')
  mkdirSync(recordedIn)
  const raw = join(dir, 'raw.jsonl')
  const client = new AgentProcess({ command: [CLI, 'record', '--out', raw, '--', ...AGENT], cwd: recordedIn })
  await client.initialize()
  const { sessionId } = await client.agent.request('session/new', { cwd: client.cwd, mcpServers: [] })
  await client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] })
  await client.agent.request('session/list', {})
  expect(await client.stop()).toBe(0)
  client.cleanup()
  transcript = join(dir, 'transcript.jsonl')
  writeFileSync(transcript, readFileSync(raw, 'utf8').replaceAll(recordedIn, '<project>'))
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('dsh-acp replay --set', () => {
  it('puts a real directory where the transcript says <project>, and compares it back as <project>', async () => {
    const elsewhere = join(dir, 'replay-project')
    mkdirSync(elsewhere)
    const run = await runReplay(['--set', `project=${elsewhere}`, transcript, '--', ...AGENT])
    expect(run.stderr).toBe('')
    expect(run.stdout).toMatch(/: equal \(\d+ agent messages, 1 connection\)\n$/)
    expect(run.status).toBe(0)
  })

  it('without it, the agent is sent the literal <project> and refuses it: a difference', async () => {
    // Up to session/new's answer: the one notification then missing costs one timeout.
    const short = join(dir, 'short.jsonl')
    const lines = readFileSync(transcript, 'utf8').split('\n')
    const answer = lines.findIndex((l) => l.includes('"dir":"out"') && l.includes('"id":1,'))
    writeFileSync(short, `${lines.slice(0, answer + 1).join('\n')}\n`)
    const run = await runReplay(['--json', '--timeout', '3000', short, '--', ...AGENT])
    expect(run.status).toBe(1)
    expect(run.stdout).toContain('must be an absolute path')
  })

  it('--update with --set writes <project>, not the directory of this run', async () => {
    const elsewhere = join(dir, 'update-project')
    mkdirSync(elsewhere)
    const copy = join(dir, 'update.jsonl')
    writeFileSync(copy, readFileSync(transcript, 'utf8').replace('"text":"hello"', '"text":"hello again"'))
    const run = await runReplay(['--update', '--set', `project=${elsewhere}`, copy, '--', ...AGENT])
    expect(run.stderr).toContain(`rewrote ${copy}`)
    const updated = readFileSync(copy, 'utf8')
    expect(updated).toContain('"cwd":"<project>"')
    expect(updated).not.toContain(elsewhere)
    expect(updated).toContain('hello again')
  })

  it('refuses a malformed --set with exit 2', async () => {
    const run = await runReplay(['--set', 'project', transcript, '--', ...AGENT])
    expect(run.status).toBe(2)
    expect(run.stderr).toContain('--set: expected NAME=VALUE')
  })
})
