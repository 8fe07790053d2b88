import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { AgentProcess, CLI, HERMETIC_ENV } from '../support/agent-process.js'
import { RemoteServer } from '../support/remote-server.js'

/** `dsh-acp serve --listen` as a command: its token, its refusals, `connect`, SIGTERM. */
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-acp-remote-cli-'))
  dirs.push(dir)
  return dir
}
const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...HERMETIC_ENV, ...env },
    input: '',
  })

describe('dsh-acp serve --listen (the command)', () => {
  it('makes its token at first start in the config directory, 0600, and --rotate-token replaces it', async () => {
    const config = tempDir()
    const rotated = run(['serve', '--rotate-token'], { XDG_CONFIG_HOME: config })
    expect(rotated.status).toBe(0)
    const file = join(config, 'dsh-acp', 'serve-token')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const first = readFileSync(file, 'utf8').trim()
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(run(['serve', '--rotate-token'], { XDG_CONFIG_HOME: config }).status).toBe(0)
    expect(readFileSync(file, 'utf8').trim()).not.toBe(first)
  })

  it('refuses to listen off loopback without TLS, and says how', () => {
    const refused = run(['serve', '--listen', '0.0.0.0:0', '--memory', '--token-file', join(tempDir(), 't')])
    expect(refused.status).toBe(1)
    expect(refused.stderr).toContain('without TLS')
    expect(refused.stderr).toContain('--behind-tls-proxy')
  })

  it('exits 0 on SIGTERM with a client connected mid-session, and prints how to connect', async () => {
    const server = await RemoteServer.start()
    const client = server.client('ws')
    await client.initialize()
    await client.agent.request('session/new', { cwd: client.cwd, mcpServers: [] })
    expect(await server.stop('SIGTERM')).toBe(0)
    expect(server.stderr).toContain('dsh-acp connect http://127.0.0.1:')
    expect(server.stderr).toContain('shutting down: SIGTERM')
    client.close()
  })

  it.each(['http', 'ws'] as const)(
    'connect over %s: the official client on stdio reaches the remote agent',
    async (kind) => {
      const server = await RemoteServer.start()
      const bridge = new AgentProcess({
        command: [CLI, 'connect', server.url(kind)],
        env: { DSH_ACP_TOKEN: server.token },
      })
      try {
        const init = await bridge.initialize()
        expect(init.agentInfo?.name).toBe('dsh-acp')
        const { sessionId } = await bridge.agent.request('session/new', { cwd: bridge.cwd, mcpServers: [] })
        const answer = await bridge.agent.request('session/prompt', {
          sessionId,
          prompt: [{ type: 'text', text: 'hi' }],
        })
        expect(answer.stopReason).toBe('end_turn')
        expect(bridge.updates.some((n) => n.update.sessionUpdate === 'agent_message_chunk')).toBe(true)
        expect(bridge.audit.problems).toEqual([])
        expect(await bridge.stop()).toBe(0)
      } finally {
        bridge.cleanup()
        await server.stop()
      }
    },
  )

  it('connect with a wrong token fails with the status, exit 1', async () => {
    const server = await RemoteServer.start()
    const bridge = new AgentProcess({
      command: [CLI, 'connect', server.url('http'), '--token', 'wrong-token-000000000000'],
    })
    await expect(bridge.initialize()).rejects.toBeDefined()
    expect(await bridge.stop()).toBe(1)
    expect(bridge.stderr).toContain('401')
    bridge.cleanup()
    await server.stop()
  })
})
