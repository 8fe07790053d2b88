import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { AgentProcess } from '../support/agent-process.js'
import { configAgentSetup, failure, keyedFakeServer } from '../support/config-agent.js'
import { allFileText, type ConfigHome } from '../support/config-home.js'
import type { FakeOpenAi } from '../support/fake-openai.js'
import { eventually, pidsIn, serverReady, stdioServer } from '../support/mcp/servers.js'
import { agentText } from './updates.js'

const KEY = 'sk-config-SECRET-7f3a9c'

const fixture = configAgentSetup()
let home: ConfigHome | undefined
let agent: AgentProcess | undefined
let fake: FakeOpenAi | undefined

describe('auth methods: terminal set-up, the agent method, auth_required and logout', () => {
  it('advertises a terminal method (and its _meta form) only to a client with auth.terminal', async () => {
    home = fixture.home()
    agent = fixture.agent(new AgentProcess({ env: home.env() }))
    const plain = await agent.initialize()
    expect(plain.authMethods).toEqual([
      expect.objectContaining({ id: 'dsh-acp-api-key', name: expect.any(String) }),
    ])
    expect(plain.agentCapabilities?.auth).toEqual({ logout: {}, status: {} })
    expect(plain.agentCapabilities?.providers).toEqual({})
    await agent.stop()
    agent = fixture.agent(new AgentProcess({ env: home.env() }))
    const terminal = await agent.initialize({ auth: { terminal: true } })
    const setup = terminal.authMethods?.find((m) => m.id === 'dsh-acp-setup') as acp.AuthMethodTerminal & {
      type: string
    }
    expect(setup).toMatchObject({ type: 'terminal', args: ['setup'], env: {} })
    expect(setup._meta).toEqual({
      'terminal-auth': {
        label: setup.name,
        command: process.execPath,
        args: [expect.stringMatching(/cli\.cjs$/), 'setup'],
        env: {},
      },
    })
    // Without a configured provider the echo model needs nothing: authenticate succeeds.
    expect(await agent.agent.request('authenticate', { methodId: 'dsh-acp-api-key' })).toEqual({})
    const unknown = await failure(agent.agent.request('authenticate', { methodId: 'dsh-acp-setup' }))
    expect(unknown?.code).toBe(-32602)
    // Zed's older form: `_meta["terminal-auth"]` in the client's capabilities, no `auth.terminal`.
    await agent.stop()
    agent = fixture.agent(new AgentProcess({ env: home.env() }))
    const legacy = await agent.initialize({ _meta: { 'terminal-auth': true } })
    expect(legacy.authMethods?.map((m) => [m.id, 'type' in m ? m.type : 'agent', m._meta])).toEqual([
      ['dsh-acp-api-key', 'agent', undefined],
      ['dsh-acp-setup', 'agent', setup._meta],
    ])
    expect(agent.audit.problems).toEqual([])
  })

  it('answers auth_required until set-up stores a key; then the configured model answers; logout removes the key', async () => {
    home = fixture.home()
    fake = await fixture.fake(keyedFakeServer(KEY, { check: true }))
    home.writeConfig({
      providers: {
        fake: { baseUrl: fake.url, apiKeyEnv: 'FAKE_PROVIDER_KEY', models: [{ name: 'fake-model' }] },
      },
    })
    const transcript = join(home.home, 'transcript.jsonl')
    agent = fixture.agent(
      new AgentProcess({ env: home.env(), args: ['--transcript', transcript, '--log-level', 'debug'] }),
    )
    await agent.initialize({ auth: { terminal: true } })
    const refused = await failure(agent.agent.request('session/new', { cwd: agent.cwd, mcpServers: [] }))
    expect(refused?.code).toBe(-32000)
    expect(refused?.message).toContain('fake/fake-model needs an API key')
    expect(refused?.message).toContain('set FAKE_PROVIDER_KEY')
    expect(refused?.message).toContain('dsh-acp setup')
    const notYet = await failure(agent.agent.request('authenticate', { methodId: 'dsh-acp-api-key' }))
    expect(notYet?.code).toBe(-32000)
    expect(notYet?.message).toContain('dsh-acp setup')

    // What the client's terminal method runs, here from flags: it checks the key with one request.
    const setup = await home.run(
      ['setup', '--provider', 'fake', '--base-url', fake.url, '--models', 'fake-model', '--key-stdin'],
      KEY,
    )
    expect(setup.stderr).toBe('')
    expect(setup.code).toBe(0)
    expect(home.credentialsMode()).toBe(0o600)

    expect(await agent.agent.request('authenticate', { methodId: 'dsh-acp-api-key' })).toEqual({})
    const created = await agent.agent.request('session/new', { cwd: agent.cwd, mcpServers: [] })
    const model = created.configOptions?.find((o) => o.id === 'model') as
      | { currentValue?: string }
      | undefined
    expect(model?.currentValue).toBe('fake/fake-model')
    const from = agent.updates.length
    const answer = await agent.agent.request('session/prompt', {
      sessionId: created.sessionId,
      prompt: [{ type: 'text', text: 'hi' }],
    })
    expect(answer.stopReason).toBe('end_turn')
    expect(agentText(agent.updates.slice(from))).toBe('hello from fake-model')
    const prompt = fake.requests.at(-1)
    expect(prompt?.headers.authorization).toBe(`Bearer ${KEY}`)

    expect(await agent.agent.request('logout', {})).toEqual({})
    const again = await failure(agent.agent.request('session/new', { cwd: agent.cwd, mcpServers: [] }))
    expect(again?.code).toBe(-32000)
    expect(() => readFileSync(home?.credentialsFile as string)).toThrow(/ENOENT/)
    expect(await agent.stop()).toBe(0)

    expect(agent.audit.problems).toEqual([])
    expect(agent.audit.entries.map((e) => e.line).join('\n')).not.toContain(KEY)
    expect(agent.stderr).not.toContain(KEY)
    expect(setup.stdout).not.toContain(KEY)
    expect(readFileSync(transcript, 'utf8')).not.toContain(KEY)
    expect(allFileText(agent.storeDir)).not.toContain(KEY)
    expect(readFileSync(home.configFile, 'utf8')).not.toContain(KEY)
  })

  it('takes the key from the environment variable the provider names, with no set-up', async () => {
    home = fixture.home()
    fake = await fixture.fake(keyedFakeServer(KEY, { check: true }))
    home.writeConfig({
      providers: {
        fake: { baseUrl: fake.url, apiKeyEnv: 'FAKE_PROVIDER_KEY', models: [{ name: 'fake-model' }] },
      },
    })
    agent = fixture.agent(new AgentProcess({ env: home.env({ FAKE_PROVIDER_KEY: KEY }) }))
    await agent.initialize()
    expect(await agent.agent.request('authenticate', { methodId: 'dsh-acp-api-key' })).toEqual({})
    const created = await agent.agent.request('session/new', { cwd: agent.cwd, mcpServers: [] })
    await agent.agent.request('session/prompt', {
      sessionId: created.sessionId,
      prompt: [{ type: 'text', text: 'hi' }],
    })
    expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(agent.stderr).not.toContain(KEY)
    expect(agent.audit.problems).toEqual([])
  })
})

describe('a bad configuration file', () => {
  it('still lets the server start and answer initialize; the user is told in an agent message naming the file and the pointer', async () => {
    home = fixture.home()
    home.writeConfig({ limits: { maxSteps: 0 }, defaultMode: 'ask' })
    agent = fixture.agent(new AgentProcess({ env: home.env() }))
    const init = await agent.initialize()
    expect(init.protocolVersion).toBe(1)
    const created = await agent.agent.request('session/new', { cwd: agent.cwd, mcpServers: [] })
    await agent.agent.request('session/list', {})
    const text = agentText(agent.updates.filter((n) => n.sessionId === created.sessionId))
    expect(text).toContain(`dsh-acp ignored its configuration file ${home.configFile}`)
    expect(text).toContain(`${home.configFile} at /limits/maxSteps: expected a number of at least 1`)
    expect(agent.stderr).toContain(`configuration ignored: ${home.configFile} at /limits/maxSteps`)
    // The echo model still answers: the file was ignored, not half applied.
    const answer = await agent.agent.request('session/prompt', {
      sessionId: created.sessionId,
      prompt: [{ type: 'text', text: 'ping' }],
    })
    expect(answer.stopReason).toBe('end_turn')
    expect(agent.audit.problems).toEqual([])
  })
})

describe('a bad configuration file, to a client that shows notices', () => {
  it('is told as one error notice naming the file and the pointer, not as an agent message', async () => {
    home = fixture.home()
    home.writeConfig({ limits: { maxSteps: 0 } })
    agent = fixture.agent(new AgentProcess({ env: home.env() }))
    await agent.initialize({ session: { notices: {} } } as acp.ClientCapabilities)
    const created = await agent.agent.request('session/new', { cwd: agent.cwd, mcpServers: [] })
    await agent.agent.request('session/list', {})
    const mine = agent.updates.filter((n) => n.sessionId === created.sessionId)
    const notices = mine
      .map(
        (n) => n.update as { sessionUpdate: string; severity?: string; title?: string; description?: string },
      )
      .filter((u) => u.sessionUpdate === 'notice')
    expect(notices).toEqual([
      expect.objectContaining({
        severity: 'error',
        title: `dsh-acp ignored its configuration file ${home.configFile}`,
        description: expect.stringContaining('/limits/maxSteps'),
      }),
    ])
    expect(agentText(mine)).not.toContain('ignored its configuration file')
    expect(agent.audit.problems).toEqual([])
  })
})

describe("the configuration's MCP servers and default mode", () => {
  it("offers the file's MCP servers to every session (the client's of the same name win) and starts sessions in its default mode", async () => {
    home = fixture.home()
    const pids = (name: string) => join(home?.home as string, `${name}.pids`)
    home.writeConfig({
      defaultMode: 'read-only',
      mcpServers: [
        stdioServer('from-file', ['--pidfile', pids('file')]),
        stdioServer('shared', ['--pidfile', pids('file-shared')]),
      ],
    })
    agent = fixture.agent(new AgentProcess({ env: home.env() }))
    await agent.initialize()
    const created = await agent.agent.request('session/new', {
      cwd: agent.cwd,
      mcpServers: [stdioServer('shared', ['--pidfile', pids('client-shared')])],
    })
    expect(created.modes?.currentModeId).toBe('read-only')
    await eventually(() => pidsIn(pids('file')).length === 1 && pidsIn(pids('client-shared')).length === 1)
    await serverReady(() => agent?.stderr ?? '', created.sessionId, 'from-file')
    expect(pidsIn(pids('file-shared'))).toEqual([])
    expect(agent.audit.problems).toEqual([])
  })
})
