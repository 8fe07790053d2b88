import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { parseTranscript } from '../../src/process/transcript.js'
import { validateAcpMessage } from '../support/acp-schema.js'
import { AgentProcess, CLI } from '../support/agent-process.js'

/** `dsh-acp record`, driven over real stdio: a transparent proxy that records a transcript. */

const BYTE_AGENT = resolve(import.meta.dirname, 'fixtures/byte-agent.mjs')
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tempTranscript(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-acp-record-'))
  dirs.push(dir)
  return join(dir, 'session.jsonl')
}

interface Run {
  readonly status: number | null
  readonly stdout: Buffer
  readonly stderr: string
}

/** Runs `dsh-acp record` with `args`, feeding `input` (then EOF unless `keepOpen`). */
function runRecord(
  args: readonly string[],
  input: Buffer | string,
  options: { keepOpen?: boolean; onStart?: (pid: number, stdout: Buffer[]) => void } = {},
): Promise<Run> {
  const child = spawn(process.execPath, [CLI, 'record', ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
  const out: Buffer[] = []
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  child.stdin.on('error', () => {})
  child.stdin.write(input)
  if (!options.keepOpen) child.stdin.end()
  options.onStart?.(child.pid as number, out)
  return new Promise((done) =>
    child.once('close', (status) => done({ status, stdout: Buffer.concat(out), stderr })),
  )
}

describe('dsh-acp record', () => {
  it('proxies our server for the official ACP client: every message both ways, in order, timed, valid ACP', async () => {
    const out = tempTranscript()
    const recorded = new AgentProcess({
      command: [CLI, 'record', '--out', out, '--', process.execPath, CLI, '--memory', '--log-level', 'error'],
    })
    await recorded.initialize()
    const { sessionId } = await recorded.agent.request('session/new', {
      cwd: recorded.cwd,
      mcpServers: [],
    })
    await recorded.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] })
    expect(await recorded.stop()).toBe(0)
    recorded.cleanup()
    const entries = parseTranscript(readFileSync(out, 'utf8'))
    const wire = recorded.audit.entries.map((e) => ({ dir: e.dir, msg: e.message }))
    const seen = entries.map((e) => ({ dir: e.dir, msg: 'msg' in e ? e.msg : undefined }))
    // Each direction in order. How the two directions interleave depends on where one watches: an
    // update the agent sends after an answer (the command list after session/new) can pass the
    // client's next request in the proxy and follow it at the client.
    for (const dir of ['in', 'out'] as const) {
      expect(seen.filter((e) => e.dir === dir)).toEqual(wire.filter((e) => e.dir === dir))
    }
    expect(entries.length).toBeGreaterThan(6)
    const times = entries.map((e) => e.ms as number)
    expect(times.every((t) => typeof t === 'number' && t >= 0)).toBe(true)
    expect(times).toEqual([...times].sort((a, b) => a - b))
    for (const entry of entries) if ('msg' in entry) expect(validateAcpMessage(entry.msg)).toEqual([])
  })

  it('copies bytes unchanged both ways (CRLF, not UTF-8, no last newline), records raw lines, exits with the agent status', async () => {
    const out = tempTranscript()
    const input = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"a"}\n'),
      Buffer.from('not json\r\n'),
      Buffer.from('{"jsonrpc":"2.0","id":2,'),
      Buffer.from('"method":"b"}\n\n'),
    ])
    const run = await runRecord(['--out', out, process.execPath, BYTE_AGENT, 'echo'], input)
    expect(run.status).toBe(3)
    const tail = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","method":"crlf"}\r\n'),
      Buffer.from([0xc3, 0x28, 0x0a]),
      Buffer.from('no newline'),
    ])
    expect(run.stdout.equals(Buffer.concat([input, tail]))).toBe(true)
    expect(run.stderr).toContain('exit code 3')
    const entries = parseTranscript(readFileSync(out, 'utf8')).map(({ ms, ...rest }) => rest)
    const sent = [
      { msg: { jsonrpc: '2.0', id: 1, method: 'a' } },
      { raw: 'not json' },
      { msg: { jsonrpc: '2.0', id: 2, method: 'b' } },
    ]
    expect(entries.filter((e) => e.dir === 'in')).toEqual(sent.map((e) => ({ dir: 'in', ...e })))
    expect(entries.filter((e) => e.dir === 'out')).toEqual([
      ...sent.map((e) => ({ dir: 'out', ...e })),
      { dir: 'out', msg: { jsonrpc: '2.0', method: 'crlf' } },
      { dir: 'out', rawBase64: Buffer.from([0xc3, 0x28]).toString('base64') },
      { dir: 'out', raw: 'no newline' },
    ])
  })

  it('records MCP server env and header values as ***, while the agent gets every byte as sent', async () => {
    const out = tempTranscript()
    const secrets = ['env-secret-1', 'header-secret-2', 'fork-secret-3', 'bad-utf8-secret-4']
    const servers = (env: string, header: string) => [
      { name: 'files', command: 'mcp-files', args: ['--x'], env: [{ name: 'TOKEN', value: env }] },
      {
        type: 'http',
        name: 'web',
        url: 'http://127.0.0.1:9/mcp',
        headers: [{ name: 'Authorization', value: header }],
      },
    ]
    const line = (id: number, method: string, params: unknown) =>
      `${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`
    const input = Buffer.concat([
      Buffer.from(
        line(1, 'session/new', {
          cwd: '/p',
          mcpServers: servers(secrets[0] as string, secrets[1] as string),
        }),
      ),
      Buffer.from(
        line(2, 'session/fork', { sessionId: 's', cwd: '/p', mcpServers: servers(secrets[2] as string, '') }),
      ),
      Buffer.from(
        `{"jsonrpc":"2.0","id":3,"method":"session/load","params":{"sessionId":"\xff","cwd":"/p",`,
        'latin1',
      ),
      Buffer.from(
        `"mcpServers":[{"name":"x","command":"c","args":[],"env":[{"name":"K","value":"${secrets[3]}"}]}]}}\n`,
      ),
    ])
    const run = await runRecord(['--out', out, process.execPath, BYTE_AGENT, 'echo'], input)
    expect(run.status).toBe(3)
    expect(run.stdout.subarray(0, input.length).equals(input)).toBe(true)
    const text = readFileSync(out, 'utf8')
    for (const secret of secrets) expect(text).not.toContain(secret)
    const entries = parseTranscript(text)
    const sent = entries.filter((e) => e.dir === 'in').map((e) => ('msg' in e ? e.msg : e)) as {
      params?: { mcpServers?: { env?: unknown; headers?: unknown; args?: unknown }[] }
    }[]
    expect(sent[0]?.params?.mcpServers).toEqual([
      { name: 'files', command: 'mcp-files', args: ['--x'], env: [{ name: 'TOKEN', value: '***' }] },
      {
        type: 'http',
        name: 'web',
        url: 'http://127.0.0.1:9/mcp',
        headers: [{ name: 'Authorization', value: '***' }],
      },
    ])
    expect(sent[1]?.params?.mcpServers?.[1]?.headers).toEqual([{ name: 'Authorization', value: '' }])
    expect(sent[2]?.params?.mcpServers?.[0]?.env).toEqual([{ name: 'K', value: '***' }])
  })

  it('loses no line when the agent closes first, and appends a second recording to the same file', async () => {
    const out = tempTranscript()
    const first = await runRecord(
      ['--out', out, process.execPath, BYTE_AGENT, 'early'],
      '{"jsonrpc":"2.0","id":1,"method":"x"}\n',
      { keepOpen: true },
    )
    expect(first.status).toBe(0)
    expect(first.stdout.toString()).toBe(
      '{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","method":"bye"}\n',
    )
    const second = await runRecord(
      ['--out', out, '--', process.execPath, BYTE_AGENT, 'early'],
      '{"jsonrpc":"2.0","id":1,"method":"y"}\n',
      { keepOpen: true },
    )
    expect(second.status).toBe(0)
    const entries = parseTranscript(readFileSync(out, 'utf8'))
    expect(entries.map((e) => [e.dir, 'msg' in e && (e.msg as { method?: string }).method])).toEqual([
      ['in', 'x'],
      ['out', undefined],
      ['out', 'bye'],
      ['in', 'y'],
      ['out', undefined],
      ['out', 'bye'],
    ])
  })

  it('loses no line when the editor closes first: output after EOF is still copied and recorded', async () => {
    const out = tempTranscript()
    const run = await runRecord(
      ['--out', out, process.execPath, BYTE_AGENT, 'late'],
      '{"jsonrpc":"2.0","method":"only"}\n',
    )
    expect(run.status).toBe(0)
    expect(run.stdout.toString()).toBe('{"jsonrpc":"2.0","method":"late"}\n')
    const entries = parseTranscript(readFileSync(out, 'utf8'))
    expect(entries.map((e) => e.dir)).toEqual(['in', 'out'])
  })

  it('passes SIGTERM on to the agent and exits with the status the agent chose', async () => {
    const out = tempTranscript()
    const run = await runRecord(['--out', out, process.execPath, BYTE_AGENT, 'signal'], '', {
      keepOpen: true,
      onStart: (pid, stdout) => {
        const poll = setInterval(() => {
          if (Buffer.concat(stdout).toString().includes('ready')) {
            clearInterval(poll)
            process.kill(pid, 'SIGTERM')
          }
        }, 10)
      },
    })
    expect(run.status).toBe(7)
    const methods = parseTranscript(readFileSync(out, 'utf8')).map(
      (e) => 'msg' in e && (e.msg as { method: string }).method,
    )
    expect(methods).toEqual(['ready', 'got'])
  })

  it('exits 2 with a clear message on a bad command line or an agent that cannot start', async () => {
    const out = tempTranscript()
    const missing = await runRecord(['--out', out, join(tmpdir(), 'no-such-agent-dsh')], '')
    expect(missing.status).toBe(2)
    expect(missing.stderr).toMatch(/dsh-acp record: cannot start .*no-such-agent-dsh: .*ENOENT/)
    const noOut = await runRecord([process.execPath, BYTE_AGENT, 'echo'], '')
    expect(noOut.status).toBe(2)
    expect(noOut.stderr).toContain('--out FILE is required')
    const noAgent = await runRecord(['--out', out], '')
    expect(noAgent.status).toBe(2)
    expect(noAgent.stderr).toContain('AGENT_COMMAND is missing')
    const unknown = await runRecord(['--bogus', 'x'], '')
    expect(unknown.stderr).toContain('unknown option --bogus')
    const help = await runRecord(['--help'], '')
    expect(help.status).toBe(0)
    expect(help.stdout.toString()).toContain('Usage: dsh-acp record --out FILE')
  })
})
