import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe, expect, it } from 'vitest'
import { CommandSandbox } from '../../src/agent/tools/command/sandbox.js'
import { AgentProcess } from '../support/agent-process.js'

// The sandbox needs a working bubblewrap (CI installs it); only where it cannot work are these skipped.
const probe = await new CommandSandbox().probe()
const bwrapWorks = probe.sandboxed
if (!bwrapWorks) console.warn(`sandbox tests skipped: ${probe.reason}`)

const SECRET = `sk-sandbox-${randomBytes(8).toString('hex')}`
const text = (t: string): acp.ContentBlock => ({ type: 'text', text: t })

const cleanups: (() => void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

interface Run {
  readonly agent: AgentProcess
  readonly sessionId: string
  readonly base: string
  readonly cwd: string
}

/**
 * An agent whose script model calls `run_command` once per command (a turn each), with its store
 * and configuration directory inside the session's cwd, so only the sandbox's own hiding keeps a
 * command from them.
 */
async function start(
  commands: readonly string[],
  args: readonly string[] = [],
  env: Readonly<Record<string, string>> = {},
): Promise<Run> {
  const base = mkdtempSync(join(tmpdir(), 'dsh-sandbox-'))
  const cwd = join(base, 'project')
  const storeDir = join(cwd, 'store')
  const configDir = join(cwd, 'config', 'dsh-acp')
  mkdirSync(storeDir, { recursive: true })
  mkdirSync(configDir, { recursive: true })
  writeFileSync(join(storeDir, 'marker.txt'), 'store-marker')
  writeFileSync(join(configDir, 'credentials.json'), `{"key":"${SECRET}"}`)
  const script = join(base, 'model.json')
  const turn = (command: string) => [
    [{ toolCall: { name: 'run_command', input: { command } } }],
    [{ text: 'done' }],
  ]
  writeFileSync(script, JSON.stringify({ turns: commands.map(turn) }))
  const agent = new AgentProcess({
    storeDir,
    cwd,
    args: ['--model', `script:${script}`, ...args],
    env: { DSH_API_KEY: SECRET, XDG_CONFIG_HOME: join(cwd, 'config'), ...env },
    setupClient: (app) =>
      app.onRequest('session/request_permission', () => ({
        outcome: { outcome: 'selected', optionId: 'allow_once' },
      })),
  })
  cleanups.push(() => rmSync(base, { recursive: true, force: true }))
  cleanups.push(() => {
    if (agent.child.exitCode === null && agent.child.signalCode === null) agent.child.kill('SIGKILL')
  })
  await agent.initialize()
  const { sessionId } = await agent.agent.request('session/new', { cwd, mcpServers: [] })
  return { agent, sessionId, base, cwd }
}

/** Prompts once and gives the text of the run_command result the turn produced. */
async function runOnce(run: Run): Promise<string> {
  const before = run.agent.updates.length
  const result = await run.agent.agent.request('session/prompt', {
    sessionId: run.sessionId,
    prompt: [text('go')],
  })
  expect(result.stopReason).toBe('end_turn')
  return commandOutput(run.agent.updates.slice(before))
}

function commandOutput(updates: readonly acp.SessionNotification[]): string {
  const texts = updates.flatMap((n) => {
    const update = n.update as { sessionUpdate: string; status?: string; content?: unknown[] }
    if (update.sessionUpdate !== 'tool_call_update' || !update.content) return []
    return update.content.flatMap((c) => {
      const block = (c as { content?: { type?: string; text?: string } }).content
      return block?.type === 'text' && block.text !== undefined ? [block.text] : []
    })
  })
  return texts.join('\n')
}

/** The pids of processes whose command line contains `marker` (or, exactly, is `sleep marker`). */
function processesWith(marker: string, exactSleep = false): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        return exactSleep ? cmdline === `sleep\0${marker}\0` : cmdline.includes(marker)
      } catch {
        return false
      }
    })
    .map(Number)
}

/** Polls `condition` until it holds (true) or the deadline passes (false). */
async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (condition()) return true
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return condition()
}

/** Polls until no process carries `marker`; true when that happened before the deadline. */
function goneWithin(marker: string, ms: number): Promise<boolean> {
  return until(() => processesWith(marker).length === 0, ms)
}

function killAll(marker: string): void {
  for (const pid of processesWith(marker)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
}

describe.skipIf(!bwrapWorks)('run_command in the bubblewrap sandbox (issue 28 #3, #4)', () => {
  it("cannot read the agent's environment, the store or the credentials; writes only in cwd and a private /tmp", async () => {
    const outside = join(tmpdir(), `dsh-sandbox-outside-${randomBytes(4).toString('hex')}`)
    const home = `${process.env.HOME ?? '/root'}/.dsh-sandbox-${randomBytes(4).toString('hex')}`
    cleanups.push(() => rmSync(outside, { force: true }))
    cleanups.push(() => rmSync(home, { force: true }))
    const run = await start([
      [
        'exec 2>&1',
        // Unconfined, the agent is $PPID and one of /proc/*: its environment holds DSH_API_KEY.
        'cat /proc/$PPID/environ /proc/*/environ 2>/dev/null | tr "\\0" "\\n" | grep -c DSH_API_KEY',
        'cat store/marker.txt 2>&1 || echo no-store',
        'ls store | wc -l',
        'cat config/dsh-acp/credentials.json 2>&1 || echo no-credentials',
        'echo evil > store/evil.txt',
        `echo outside > ${outside}`,
        `echo home > ${home} 2>/dev/null || echo no-home`,
        'echo mine > in-cwd.txt && echo wrote-cwd',
        'echo t > /tmp/private.txt && cat /tmp/private.txt',
      ].join('; '),
    ])
    const output = await runOnce(run)
    expect(output).not.toContain(SECRET)
    expect(output).toMatch(/^exit code 0\n0\n/)
    expect(output).toContain('no-store')
    expect(output).not.toContain('store-marker')
    expect(output).toContain('no-credentials')
    expect(output).toContain('no-home')
    expect(output).toContain('wrote-cwd\nt\n')
    expect(output).not.toContain('without a sandbox')
    expect(readFileSync(join(run.cwd, 'in-cwd.txt'), 'utf8')).toBe('mine\n')
    expect(existsSync(join(run.cwd, 'store', 'evil.txt'))).toBe(false)
    expect(existsSync(outside)).toBe(false)
    expect(existsSync(home)).toBe(false)
    expect(existsSync('/tmp/private.txt')).toBe(false)
    expect(await run.agent.stop()).toBe(0)
  })

  it('--sandbox-network off cuts the network; it is on by default', async () => {
    const server: Server = createServer((socket) => socket.end())
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => server.close())
    const port = (server.address() as { port: number }).port
    const connect = `"${process.execPath}" -e "require('net').connect(${port},'127.0.0.1').on('connect',()=>{console.log('connected');process.exit(0)}).on('error',()=>console.log('unreachable'))"`
    const on = await start([connect])
    expect(await runOnce(on)).toContain('connected')
    expect(await on.agent.stop()).toBe(0)
    const off = await start([connect], ['--sandbox-network', 'off'])
    expect(await runOnce(off)).toContain('unreachable')
    expect(await off.agent.stop()).toBe(0)
  })

  it('a setsid daemon started by a command does not outlive it (PID namespace, --die-with-parent)', async () => {
    const marker = `299.${randomBytes(3).readUIntBE(0, 3)}`
    cleanups.push(() => killAll(marker))
    const run = await start([`setsid sh -c 'exec sleep ${marker}' </dev/null >/dev/null 2>&1 & echo started`])
    expect(await runOnce(run)).toContain('started')
    expect(await run.agent.stop()).toBe(0)
    expect(await goneWithin(marker, 10_000)).toBe(true)
  })

  it('a SIGKILLed agent takes its running sandboxed command and its daemons with it', async () => {
    const marker = `297.${randomBytes(3).readUIntBE(0, 3)}`
    cleanups.push(() => killAll(marker))
    const run = await start([
      `setsid sh -c 'exec sleep ${marker}' </dev/null >/dev/null 2>&1 & exec sleep ${marker}`,
    ])
    const prompt = run.agent.agent.request('session/prompt', {
      sessionId: run.sessionId,
      prompt: [text('go')],
    })
    prompt.catch(() => undefined)
    expect(await until(() => processesWith(marker, true).length === 2, 20_000)).toBe(true)
    await run.agent.kill()
    expect(await goneWithin(marker, 10_000)).toBe(true)
  })

  it('--sandbox off runs commands as before, and the result says it ran without a sandbox', async () => {
    const outside = join(tmpdir(), `dsh-sandbox-off-${randomBytes(4).toString('hex')}`)
    cleanups.push(() => rmSync(outside, { force: true }))
    const run = await start([`echo out > ${outside} && cat store/marker.txt`], ['--sandbox', 'off'])
    const output = await runOnce(run)
    expect(output).toContain('store-marker')
    expect(output).toContain('[ran without a sandbox: the sandbox is off (--sandbox off)]')
    expect(readFileSync(outside, 'utf8')).toBe('out\n')
    expect(await run.agent.stop()).toBe(0)
    // The user asked for it: no warning at start.
    expect(run.agent.stderr).not.toContain('WITHOUT a sandbox')
  })
})

describe('where no sandbox is available (issue 28 #3)', () => {
  // No bubblewrap on PATH: /bin/sh is run by its absolute path, so commands still run.
  const noBwrap = { PATH: join(tmpdir(), 'dsh-no-such-dir') }

  it('auto says so once at start and in every result, and runs the command as before', async () => {
    const run = await start(['echo ran', 'echo again'], [], noBwrap)
    const first = await runOnce(run)
    expect(first).toMatch(/^exit code 0\nran\n/)
    expect(first).toContain('[ran without a sandbox: bubblewrap (bwrap) is not installed]')
    expect(await runOnce(run)).toContain('[ran without a sandbox: bubblewrap (bwrap) is not installed]')
    expect(await run.agent.stop()).toBe(0)
    const warnings = run.agent.stderr.split('\n').filter((line) => line.includes('WITHOUT a sandbox'))
    expect(warnings).toEqual([
      expect.stringContaining(
        'run_command runs local commands WITHOUT a sandbox: bubblewrap (bwrap) is not installed',
      ),
    ])
  })

  it('--sandbox bwrap refuses to run the command, saying why', async () => {
    const marker = join(tmpdir(), `dsh-sandbox-refused-${randomBytes(4).toString('hex')}`)
    const run = await start([`touch ${marker}`], ['--sandbox', 'bwrap'], noBwrap)
    const output = await runOnce(run)
    expect(output).toContain('not run: the sandbox is required but bubblewrap (bwrap) is not installed')
    expect(existsSync(marker)).toBe(false)
    expect(run.agent.stderr).toContain('run_command will refuse local commands')
    expect(await run.agent.stop()).toBe(0)
  })
})

describe('stdin EOF while a command runs (issue 28 #4)', () => {
  it('cancels the turn, records and answers it as cancelled, ends the command and exits promptly', async () => {
    const marker = `598.${randomBytes(3).readUIntBE(0, 3)}`
    cleanups.push(() => killAll(marker))
    for (const mode of ['auto', 'off']) {
      const run = await start([`sleep ${marker}`], ['--sandbox', mode])
      const prompt = run.agent.agent.request('session/prompt', {
        sessionId: run.sessionId,
        prompt: [text('go')],
      })
      const running = until(() => processesWith(marker).length > 0, 20_000)
      expect(await Promise.race([running, prompt.then(() => 'the turn ended first')])).toBe(true)
      run.agent.child.stdin.end()
      expect((await prompt).stopReason).toBe('cancelled')
      const code = await new Promise<number | null>((resolve) => {
        if (run.agent.child.exitCode !== null) resolve(run.agent.child.exitCode)
        else run.agent.child.once('exit', resolve)
      })
      expect(code).toBe(0)
      expect(await goneWithin(marker, 10_000)).toBe(true)
      const log = readFileSync(join(run.cwd, 'store', `${run.sessionId}.jsonl`), 'utf8')
      const ends = log
        .split('\n')
        .filter((line) => line.includes('"turn/end"'))
        .map((line) => (JSON.parse(line) as { data: { reason: string } }).data.reason)
      expect(ends).toEqual(['cancelled'])
    }
  }, 60_000)
})
