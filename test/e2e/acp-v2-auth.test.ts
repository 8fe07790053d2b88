import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { configAgentSetup, failure } from '../support/config-agent.js'
import { allFileText, type ConfigHome } from '../support/config-home.js'
import { type FakeOpenAi, startFakeOpenAi } from '../support/fake-openai.js'
import { V2AgentProcess } from '../support/v2/v2-agent-process.js'

const KEY = 'sk-v2-login-SECRET-51c0de'

const fixture = configAgentSetup()
let home: ConfigHome | undefined
let agent: V2AgentProcess | undefined
let fake: FakeOpenAi | undefined

function start(env: Record<string, string>, store: string): V2AgentProcess {
  return new V2AgentProcess({ env, args: ['--store', store, '--log-level', 'debug'] })
}

describe('auth/login and auth/logout on ACP v2, tied to the provider credentials', () => {
  it('advertises authMethods with methodId and type; the terminal one only to a client with auth.terminal', async () => {
    home = fixture.home()
    agent = fixture.agent(start(home.env(), `${home.home}/store`))
    const plain = await agent.initialize()
    expect(plain.authMethods).toEqual([
      {
        methodId: 'dsh-acp-api-key',
        type: 'agent',
        name: expect.any(String),
        description: expect.any(String),
      },
    ])
    // The echo model needs no key: login succeeds; a terminal or unknown method is not a login.
    expect(await agent.agent.request('auth/login', { methodId: 'dsh-acp-api-key' })).toEqual({})
    const unknown = await failure(agent.agent.request('auth/login', { methodId: 'no-such-method' }))
    expect(unknown?.code).toBe(-32602)
    await agent.stop()
    agent = fixture.agent(start(home.env(), `${home.home}/store`))
    const terminal = await agent.initialize({ auth: { terminal: {} } })
    expect(terminal.authMethods?.map((m) => [m.methodId, m.type])).toEqual([
      ['dsh-acp-api-key', 'agent'],
      ['dsh-acp-setup', 'terminal'],
    ])
    expect(terminal.authMethods?.[1]).toMatchObject({ args: ['setup'], env: [] })
    expect(terminal.authMethods?.[1]).not.toHaveProperty('_meta')
    const notALogin = await failure(agent.agent.request('auth/login', { methodId: 'dsh-acp-setup' }))
    expect(notALogin?.code).toBe(-32602)
    expect(agent.audit.problems).toEqual([])
  })

  it('login fails (auth_required) until a key is stored; then sessions start; logout removes the stored key', async () => {
    home = fixture.home()
    fake = await fixture.fake(
      startFakeOpenAi(() => ({ status: 200, body: { choices: [{ message: { content: 'OK' } }] } })),
    )
    home.writeConfig({
      providers: {
        fake: { baseUrl: fake.url, apiKeyEnv: 'FAKE_PROVIDER_KEY', models: [{ name: 'fake-model' }] },
      },
    })
    agent = fixture.agent(start(home.env(), `${home.home}/store`))
    await agent.initialize()
    const cwd = home.home
    const refused = await failure(agent.agent.request('session/new', { cwd, mcpServers: [] }))
    expect(refused?.code).toBe(-32000)
    const notYet = await failure(agent.agent.request('auth/login', { methodId: 'dsh-acp-api-key' }))
    expect(notYet).toMatchObject({ code: -32000, message: expect.stringContaining('dsh-acp setup') })

    const setup = await home.run(
      ['setup', '--provider', 'fake', '--base-url', fake.url, '--models', 'fake-model', '--key-stdin'],
      KEY,
    )
    expect(setup.code).toBe(0)
    expect(await agent.agent.request('auth/login', { methodId: 'dsh-acp-api-key' })).toEqual({})
    const created = await agent.agent.request('session/new', { cwd, mcpServers: [] })
    expect(created.sessionId).toEqual(expect.any(String))

    expect(await agent.agent.request('auth/logout', {})).toEqual({})
    expect(() => readFileSync(home?.credentialsFile as string)).toThrow(/ENOENT/)
    const again = await failure(agent.agent.request('session/new', { cwd, mcpServers: [] }))
    expect(again?.code).toBe(-32000)
    const loginAgain = await failure(agent.agent.request('auth/login', { methodId: 'dsh-acp-api-key' }))
    expect(loginAgain?.code).toBe(-32000)
    expect(await agent.stop()).toBe(0)

    expect(agent.audit.problems).toEqual([])
    expect(agent.audit.lines.map((l) => JSON.stringify(l.message)).join('\n')).not.toContain(KEY)
    expect(agent.stderr).not.toContain(KEY)
    expect(allFileText(`${home.home}/store`)).not.toContain(KEY)
  })
})
