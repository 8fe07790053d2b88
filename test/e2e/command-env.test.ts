import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe, expect, it } from 'vitest'
import { CommandSandbox } from '../../src/agent/tools/command/sandbox.js'
import { AgentProcess } from '../support/agent-process.js'

// Issue 34 #7 (a command's environment) and #12 (what the sandbox's PID 1 shows).
const probe = await new CommandSandbox().probe()
const bwrapWorks = probe.sandboxed
if (!bwrapWorks) console.warn(`sandboxed command-environment tests skipped: ${probe.reason}`)

const KEY = `sk-deepseek-${randomBytes(8).toString('hex')}`
const TOKEN = `tok-${randomBytes(8).toString('hex')}`
const PLAIN = `plain-${randomBytes(8).toString('hex')}`

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

interface Run {
  readonly agent: AgentProcess
  readonly sessionId: string
  readonly cwd: string
  readonly configDir: string
}

/** An agent whose user config names DEEPSEEK_API_KEY as a provider's key, running `command` via run_command. */
async function start(command: string, sandbox: 'auto' | 'off', config: object = {}): Promise<Run> {
  const base = mkdtempSync(join(tmpdir(), 'dsh-cmd-env-'))
  cleanups.push(() => rmSync(base, { recursive: true, force: true }))
  const cwd = join(base, 'project')
  const configDir = join(base, 'config', 'dsh-acp')
  mkdirSync(cwd, { recursive: true })
  mkdirSync(configDir, { recursive: true })
  writeFileSync(
    join(configDir, 'config.json'),
    JSON.stringify({
      providers: {
        deepseek: {
          baseUrl: 'https://api.deepseek.com/v1',
          apiKeyEnv: 'DEEPSEEK_API_KEY',
          models: [{ name: 'deepseek-chat' }],
        },
      },
      ...config,
    }),
  )
  const script = join(base, 'model.json')
  writeFileSync(
    script,
    JSON.stringify({
      turns: [[[{ toolCall: { name: 'run_command', input: { command } } }], [{ text: 'done' }]]],
    }),
  )
  const agent = new AgentProcess({
    storeDir: join(base, 'store'),
    cwd,
    args: ['--model', `script:${script}`, '--sandbox', sandbox],
    env: {
      XDG_CONFIG_HOME: join(base, 'config'),
      DEEPSEEK_API_KEY: KEY,
      MY_SERVICE_TOKEN: TOKEN,
      SOME_PLAIN_SETTING: PLAIN,
      LC_TIME: 'C',
    },
    setupClient: (app) =>
      app.onRequest('session/request_permission', () => ({
        outcome: { outcome: 'selected', optionId: 'allow_once' },
      })),
  })
  cleanups.push(() => {
    if (agent.child.exitCode === null && agent.child.signalCode === null) agent.child.kill('SIGKILL')
  })
  await agent.initialize()
  const { sessionId } = await agent.agent.request('session/new', { cwd, mcpServers: [] })
  return { agent, sessionId, cwd, configDir }
}

/** Prompts once and gives the text of the run_command result. */
async function runOnce(run: Run): Promise<string> {
  const result = await run.agent.agent.request('session/prompt', {
    sessionId: run.sessionId,
    prompt: [{ type: 'text', text: 'go' }],
  })
  expect(result.stopReason).toBe('end_turn')
  return commandOutput(run.agent.updates)
}

function commandOutput(updates: readonly acp.SessionNotification[]): string {
  return updates
    .flatMap((n) => {
      const update = n.update as { sessionUpdate: string; content?: unknown[] }
      if (update.sessionUpdate !== 'tool_call_update' || !update.content) return []
      return update.content.flatMap((c) => {
        const block = (c as { content?: { type?: string; text?: string } }).content
        return block?.type === 'text' && block.text !== undefined ? [block.text] : []
      })
    })
    .join('\n')
}

const modes = [
  { mode: 'off', skip: false },
  { mode: 'auto', skip: !bwrapWorks },
] as const

describe('a command sees an allow-listed environment (issue 34 #7)', () => {
  for (const { mode, skip } of modes) {
    it.skipIf(skip)(`--sandbox ${mode}: no provider key, no token, no unlisted variable`, async () => {
      const run = await start('env', mode)
      const output = await runOnce(run)
      expect(output).toMatch(/^exit code 0\n/)
      expect(output).not.toContain(KEY)
      expect(output).not.toContain('DEEPSEEK_API_KEY')
      expect(output).not.toContain(TOKEN)
      expect(output).not.toContain(PLAIN)
      expect(output).toMatch(/^PATH=/m)
      expect(output).toMatch(/^HOME=/m)
      expect(output).toContain('LC_TIME=C')
      expect(await run.agent.stop()).toBe(0)
    })

    it.skipIf(skip)(
      `--sandbox ${mode}: sandbox.passEnv passes what the user names, never a provider's key`,
      async () => {
        const passEnv = ['MY_SERVICE_TOKEN', 'SOME_PLAIN_SETTING', 'DEEPSEEK_API_KEY']
        const run = await start('env', mode, { sandbox: { passEnv } })
        const output = await runOnce(run)
        expect(output).toContain(`MY_SERVICE_TOKEN=${TOKEN}`)
        expect(output).toContain(`SOME_PLAIN_SETTING=${PLAIN}`)
        expect(output).not.toContain(KEY)
        expect(await run.agent.stop()).toBe(0)
      },
    )
  }
})

describe.skipIf(!bwrapWorks)("the sandbox's PID 1 does not name the hidden paths (issue 34 #12)", () => {
  it('/proc/1/cmdline and /proc/1/environ name neither the store nor the configuration directory', async () => {
    const run = await start('tr "\\0" "\\n" < /proc/1/cmdline; tr "\\0" "\\n" < /proc/1/environ', 'auto')
    const output = await runOnce(run)
    expect(output).toContain('bwrap')
    expect(output).not.toContain(run.configDir)
    expect(output).not.toContain(run.agent.storeDir)
    expect(output).not.toContain('--tmpfs')
    expect(await run.agent.stop()).toBe(0)
  })
})
