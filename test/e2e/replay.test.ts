import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AgentProcess, CLI } from '../support/agent-process.js'
import { runReplay } from '../support/run-replay.js'

/**
 * `dsh-acp replay` against a second agent (test/e2e/fixtures/sdk-agent.mjs, on the official SDK's
 * agent side): a transcript recorded from its `base` variant through `dsh-acp record` replays
 * equal, and each other variant's difference is found and reported at the right line.
 */

// biome-ignore lint/suspicious/noExplicitAny: recorded messages are walked freely in these checks
type Json = Record<string, any>

const SDK_AGENT = resolve(import.meta.dirname, 'fixtures/sdk-agent.mjs')
let dir: string
let transcript: string
/** The recorded transcript's lines, parsed. */
let lines: { dir: string; msg: Json }[]

/** The 1-based line of the first recorded message for which `matches` holds. */
function lineOf(matches: (msg: Json, dir: string) => boolean, from = 0): number {
  const index = lines.findIndex((l, i) => i >= from && 'msg' in l && matches(l.msg, l.dir))
  if (index < 0) throw new Error('no such line')
  return index + 1
}

/** `replay --json FILE [extra] -- node sdk-agent.mjs VARIANT`, the report parsed. */
async function replayJson(
  variant: string,
  extra: readonly string[] = [],
  file = transcript,
  env: Record<string, string> = {},
) {
  const run = await runReplay(['--json', ...extra, file, '--', process.execPath, SDK_AGENT, variant], env)
  expect(run.stderr).toBe('')
  return { status: run.status, report: JSON.parse(run.stdout) }
}

const text = (msg: Json) => msg.params?.update?.content?.text as string | undefined

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-acp-replay-'))
  transcript = join(dir, 'sdk-agent.jsonl')
  const client = new AgentProcess({
    command: [CLI, 'record', '--out', transcript, '--', process.execPath, SDK_AGENT, 'base'],
    setupClient: (app) => {
      app.onRequest('session/request_permission', () => ({
        outcome: { outcome: 'selected', optionId: 'allow' },
      }))
    },
  })
  await client.initialize()
  const { sessionId } = await client.agent.request('session/new', { cwd: client.cwd, mcpServers: [] })
  await client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] })
  await client.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'ask permission' }],
  })
  await expect(
    client.agent.request('session/prompt', {
      sessionId: 'no-such-session',
      prompt: [{ type: 'text', text: 'x' }],
    }),
  ).rejects.toMatchObject({ code: -32002 })
  expect(await client.stop()).toBe(0)
  client.cleanup()
  lines = readFileSync(transcript, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('dsh-acp replay against an agent on the SDK', () => {
  it('replays its own recording equal: random session ids, versions and times are normalized', async () => {
    expect(lines.length).toBe(17)
    const run = await runReplay(['--validate', transcript, '--', process.execPath, SDK_AGENT, 'base'])
    expect(run.stdout).toBe(`${transcript}: equal (11 agent messages, 1 connection)\n`)
    expect(run.status).toBe(0)
  })

  it('a changed text: each changed chunk at its line, the field and both values', async () => {
    const { status, report } = await replayJson('changed-text')
    expect(status).toBe(1)
    const first = lineOf((m) => text(m) === 'You said: hello')
    const second = lineOf((m) => text(m) === 'You said: ask permission')
    expect(report.differences).toEqual([
      {
        kind: 'changed',
        connection: 0,
        line: first,
        what: 'session/update agent_message_chunk (<session-1>)',
        fields: [
          { path: '/params/update/content/text', expected: 'You said: hello', actual: 'You wrote: hello' },
        ],
      },
      {
        kind: 'changed',
        connection: 0,
        line: second,
        what: 'session/update agent_message_chunk (<session-1>)',
        fields: [
          {
            path: '/params/update/content/text',
            expected: 'You said: ask permission',
            actual: 'You wrote: ask permission',
          },
        ],
      },
    ])
    const textRun = await runReplay([transcript, '--', process.execPath, SDK_AGENT, 'changed-text'])
    expect(textRun.stdout).toContain(
      `${transcript}:${first}: session/update agent_message_chunk (<session-1>) differs\n    /params/update/content/text: expected "You said: hello", got "You wrote: hello"\n`,
    )
    expect(textRun.stdout).toMatch(/2 differences, 0 schema violations\n$/)
  })

  it('a missing notification: reported missing at its line, with what was expected', async () => {
    const { status, report } = await replayJson('missing-notification', ['--timeout', '2000'])
    expect(status).toBe(1)
    const done = lines.flatMap((l, i) => (text(l.msg)?.startsWith('Done at') ? [i + 1] : []))
    expect(done).toHaveLength(2)
    const missing = report.differences.filter((d: { kind: string }) => d.kind === 'missing')
    expect(missing.map((d: { line: number }) => d.line)).toEqual(done)
    expect(missing[0].expected.params.update.content.text).toBe('Done at <time>')
    expect(
      report.differences.filter((d: { kind: string }) => d.kind !== 'missing' && d.kind !== 'timeout'),
    ).toEqual([])
  })

  it('an extra request: reported after the line it followed, answered with an error', async () => {
    const { status, report } = await replayJson('extra-request')
    expect(status).toBe(1)
    const prompts = lines.flatMap((l, i) =>
      l.msg.method === 'session/prompt' && l.msg.params.sessionId !== 'no-such-session' ? [i + 1] : [],
    )
    expect(report.differences).toEqual(
      prompts.map((line) => ({
        kind: 'extra',
        connection: 0,
        afterLine: lastAgentLineBefore(line),
        what: 'request fs/read_text_file (<session-1>)',
        actual: {
          jsonrpc: '2.0',
          id: '<agent-request-id>',
          method: 'fs/read_text_file',
          params: { sessionId: '<session-1>', path: '/work/notes.txt' },
        },
        note: 'the transcript holds no request like it: answered with an error',
      })),
    )
  })

  it('a wrong error code: the response at its line, /error/code expected and got', async () => {
    const { status, report } = await replayJson('wrong-error-code')
    expect(status).toBe(1)
    expect(report.differences).toEqual([
      {
        kind: 'changed',
        connection: 0,
        line: lineOf((m) => m.error?.code === -32002),
        what: `response to session/prompt (id ${lines[lineOf((m) => m.error?.code === -32002) - 1]?.msg.id})`,
        fields: [{ path: '/error/code', expected: -32002, actual: -32603 }],
      },
    ])
  })

  it('--validate: a message breaking the ACP schema is a violation at its line; without it, only a difference', async () => {
    const { status, report } = await replayJson('bad-schema', ['--validate'])
    expect(status).toBe(1)
    const results = lines.flatMap((l, i) => (l.msg.result?.stopReason === 'end_turn' ? [i + 1] : []))
    expect(report.violations.map((v: { line: number }) => v.line)).toEqual(results)
    expect(report.violations[0].what).toBe('response to session/prompt')
    expect(report.violations[0].errors.join('\n')).toContain('stopReason')
    expect(report.differences.map((d: { line: number }) => d.line)).toEqual(results)
  })

  it('a hung agent: the replay fails at the step it hung at, within the timeout, and the agent is stopped', async () => {
    const started = Date.now()
    const pidFile = join(dir, 'hang.pid')
    const { status, report } = await replayJson('hang', ['--timeout', '2000'], transcript, {
      SDK_AGENT_PID_FILE: pidFile,
    })
    expect(() => process.kill(Number(readFileSync(pidFile, 'utf8')), 0)).toThrow(
      expect.objectContaining({ code: 'ESRCH' }),
    )
    expect(status).toBe(1)
    const firstPrompt = lineOf((m) => m.method === 'session/prompt')
    const timeout = report.differences[0]
    expect(timeout).toMatchObject({
      kind: 'timeout',
      connection: 0,
      line: firstPrompt + 1,
      atLine: lineOf((m) => m.method === 'session/prompt', firstPrompt),
    })
    expect(timeout.what).toContain('the agent hung')
    expect(report.differences.slice(1).map((d: { kind: string; line: number }) => [d.kind, d.line])).toEqual(
      lines.flatMap((l, i) =>
        l.dir === 'out' && i + 1 > firstPrompt && i + 1 < timeout.atLine ? [['missing', i + 1]] : [],
      ),
    )
    expect(report.agents).toEqual([{ exit: expect.any(Object), completed: false }])
    expect(Date.now() - started).toBeLessThan(15_000)
  })

  it('a request the agent never makes is missing, not a hang: the replay goes on and compares the rest', async () => {
    const { status, report } = await replayJson('skip-permission', ['--timeout', '1500'])
    expect(status).toBe(1)
    const permission = lineOf((m) => m.method === 'session/request_permission')
    expect(report.differences).toEqual([
      expect.objectContaining({
        kind: 'timeout',
        line: permission,
        what: expect.stringContaining('going on without it'),
      }),
      expect.objectContaining({
        kind: 'missing',
        line: permission,
        what: 'request session/request_permission (<session-1>)',
      }),
    ])
    expect(report.agents).toEqual([{ exit: { code: 0, signal: null }, completed: true }])
  })

  it('--update rewrites the transcript from the run; the next replay is equal', async () => {
    const copy = join(dir, 'update.jsonl')
    copyFileSync(transcript, copy)
    const updated = await runReplay(['--update', copy, '--', process.execPath, SDK_AGENT, 'changed-text'])
    expect(updated.status).toBe(0)
    expect(updated.stderr).toContain(`rewrote ${copy}`)
    expect(readFileSync(copy, 'utf8')).toContain('You wrote: hello')
    expect((await replayJson('changed-text', [], copy)).status).toBe(0)
    expect((await replayJson('base', [], copy)).status).toBe(1)
  })

  it('--rules: an ignore pointer and a pattern make the changed text compare equal', async () => {
    const rules = join(dir, 'rules.json')
    writeFileSync(
      rules,
      JSON.stringify({
        rules: [{ pattern: '^You (said|wrote):', replace: 'You:', method: 'session/update' }],
      }),
    )
    expect((await replayJson('changed-text', ['--rules', rules])).status).toBe(0)
    writeFileSync(rules, JSON.stringify({ rules: [{ ignore: '/params/update/content/text' }] }))
    expect((await replayJson('changed-text', ['--rules', rules])).status).toBe(0)
    writeFileSync(rules, JSON.stringify({ rules: [{ ignore: 'params' }] }))
    const bad = await runReplay(['--rules', rules, transcript, '--', process.execPath, SDK_AGENT, 'base'])
    expect(bad.status).toBe(2)
    expect(bad.stderr).toContain('is not a JSON pointer')
  })

  it('exits 2 on usage and start errors, with a clear message', async () => {
    const missing = await runReplay([join(dir, 'nope.jsonl'), '--', process.execPath, SDK_AGENT])
    expect(missing.status).toBe(2)
    expect(missing.stderr).toContain('ENOENT')
    const bad = join(dir, 'bad.jsonl')
    writeFileSync(bad, '{"dir":"in","msg":{}}\nnot json\n')
    const badRun = await runReplay([bad, '--', process.execPath, SDK_AGENT])
    expect(badRun.status).toBe(2)
    expect(badRun.stderr).toContain('transcript line 2: not JSON')
    const noAgent = await runReplay([transcript, '--', join(dir, 'no-such-agent')])
    expect(noAgent.status).toBe(2)
    expect(noAgent.stderr).toContain('cannot start')
    expect((await runReplay([transcript])).stderr).toContain('AGENT_COMMAND is missing')
    expect((await runReplay(['--timeout', '0', transcript, 'x'])).stderr).toContain('--timeout must be')
  })
})

/** The last agent line before the 1-based line `line`. */
function lastAgentLineBefore(line: number): number {
  for (let i = line - 2; i >= 0; i--) if (lines[i]?.dir === 'out') return i + 1
  return 0
}
