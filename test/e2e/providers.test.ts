import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { validateAcpDefinition } from '../support/acp-schema.js'
import { AgentProcess } from '../support/agent-process.js'
import { configAgentSetup, failure, keyedFakeServer } from '../support/config-agent.js'
import { allFileText, type ConfigHome } from '../support/config-home.js'
import type { FakeOpenAi } from '../support/fake-openai.js'
import { agentText } from './updates.js'

const KEY = 'sk-providers-SECRET-e2e-4b1d'

const fixture = configAgentSetup()
let home: ConfigHome | undefined
let agent: AgentProcess | undefined
let fake: FakeOpenAi | undefined

/** `value`, after checking it against the unstable schema's `$defs/<name>`. */
function valid<T>(name: string, value: T): T {
  expect(validateAcpDefinition(name, value)).toEqual([])
  return value
}

describe('providers/* and auth/status (unstable schema), backed by config.json', () => {
  it('lists, sets, disables and reports key state without ever sending a key; the next start uses what was recorded', async () => {
    home = fixture.home()
    fake = await fixture.fake(keyedFakeServer(KEY))
    home.writeConfig({
      providers: {
        main: {
          title: 'Main',
          baseUrl: 'http://127.0.0.1:9/v1',
          apiKeyEnv: 'MAIN_KEY',
          models: [{ name: 'fake-model' }],
        },
        local: { baseUrl: 'http://127.0.0.1:11434/v1', keyRequired: false, models: [{ name: 'qwen' }] },
      },
      defaultModel: 'main/fake-model',
      mcpServers: [],
    })
    const statusUpdates: unknown[] = []
    agent = fixture.agent(
      new AgentProcess({
        env: home.env(),
        setupClient: (app) => {
          app.onNotification('auth/status_update' as never, ({ params }: { params: unknown }) => {
            statusUpdates.push(params)
          })
        },
      }),
    )
    const init = valid('InitializeResponse', await agent.initialize())
    // Where the unstable schema puts them: agentCapabilities.providers and agentCapabilities.auth.status.
    expect(init.agentCapabilities?.providers).toEqual({})
    expect(init.agentCapabilities?.auth).toEqual({ logout: {}, status: {} })

    const request = <T>(method: string, params: unknown) =>
      agent?.agent.request<T>(method, params) as Promise<T>

    const before = valid('AuthStatusResponse', await request<acp.AuthStatusResponse>('auth/status', {}))
    expect(before.state).toBe('unauthenticated')
    expect(before.accounts?.map((a) => [a.label, a.active])).toEqual([
      ['Main: no API key', false],
      ['local: no key needed', true],
    ])

    const listed = valid(
      'ListProvidersResponse',
      await request<acp.ListProvidersResponse>('providers/list', {}),
    )
    expect(listed.providers).toEqual([
      {
        providerId: 'main',
        supported: ['openai'],
        required: true,
        current: { apiType: 'openai', baseUrl: 'http://127.0.0.1:9/v1' },
      },
      {
        providerId: 'local',
        supported: ['openai'],
        required: false,
        current: { apiType: 'openai', baseUrl: 'http://127.0.0.1:11434/v1' },
      },
    ])

    const set = await request('providers/set', {
      providerId: 'main',
      apiType: 'openai',
      baseUrl: fake.url,
      headers: { Authorization: `Bearer ${KEY}` },
    })
    expect(valid('SetProviderResponse', set)).toEqual({})
    const after = valid('AuthStatusResponse', await request<acp.AuthStatusResponse>('auth/status', {}))
    expect(after.state).toBe('authenticated')
    expect(after.accounts?.[0]).toMatchObject({ label: 'Main: API key set', active: true })
    // The change was announced once, with what auth/status now says (the notification precedes
    // the auth/status answer on the same ordered stream).
    expect(statusUpdates).toEqual([after])

    const relisted = valid(
      'ListProvidersResponse',
      await request<acp.ListProvidersResponse>('providers/list', {}),
    )
    expect(relisted.providers[0]?.current).toEqual({ apiType: 'openai', baseUrl: fake.url })

    expect(
      valid('DisableProviderResponse', await request('providers/disable', { providerId: 'local' })),
    ).toEqual({})
    const disabled = valid(
      'ListProvidersResponse',
      await request<acp.ListProvidersResponse>('providers/list', {}),
    )
    expect(disabled.providers.map((p) => [p.providerId, p.current ?? null])).toEqual([
      ['main', { apiType: 'openai', baseUrl: fake.url }],
      ['local', null],
    ])
    // Disabling `local` took its account out of effect: announced once more, as auth/status says.
    const afterDisable = valid('AuthStatusResponse', await request<acp.AuthStatusResponse>('auth/status', {}))
    expect(afterDisable.accounts?.[1]).toMatchObject({ label: 'local: no key needed', active: false })
    expect(statusUpdates).toEqual([after, afterDisable])

    // Refused clearly, changing nothing: another protocol, the required provider, bad params.
    const anthropic = await failure(
      request('providers/set', { providerId: 'main', apiType: 'anthropic', baseUrl: fake.url }),
    )
    expect(anthropic).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/apiType "anthropic" is not supported/),
    })
    const required = await failure(request('providers/disable', { providerId: 'main' }))
    expect(required).toMatchObject({ code: -32602, message: expect.stringMatching(/defaultModel/) })
    const missing = await failure(request('providers/set', { providerId: 'main', apiType: 'openai' }))
    expect(missing?.code).toBe(-32602)
    const unknown = await failure(request('providers/disable', { providerId: 'nobody' }))
    expect(unknown).toMatchObject({ code: -32602, message: expect.stringMatching(/no provider "nobody"/) })

    // Refusals changed nothing, so announced nothing.
    expect(statusUpdates).toHaveLength(2)

    const config = JSON.parse(readFileSync(home.configFile, 'utf8'))
    expect(config.providers.main.baseUrl).toBe(fake.url)
    expect(config.providers.local.disabled).toBe(true)
    expect(config.mcpServers).toEqual([])
    expect(statSync(home.configFile).mode & 0o777).toBe(0o600)
    expect(await agent.stop()).toBe(0)
    const firstOut = agent.audit.entries.filter((e) => e.dir === 'out').map((e) => e.line)
    expect(agent.audit.problems).toEqual([])
    agent.cleanup()

    // A new start serves what was recorded: the set provider's server, with the key it was given.
    agent = fixture.agent(new AgentProcess({ env: home.env() }))
    await agent.initialize()
    const created = await agent.agent.request('session/new', { cwd: agent.cwd, mcpServers: [] })
    const models = created.configOptions?.find((o) => o.id === 'model') as
      | { options?: { value: string }[] }
      | undefined
    expect(models?.options?.map((o) => o.value)).toEqual(['main/fake-model'])
    const from = agent.updates.length
    const answer = await agent.agent.request('session/prompt', {
      sessionId: created.sessionId,
      prompt: [{ type: 'text', text: 'hi' }],
    })
    expect(answer.stopReason).toBe('end_turn')
    expect(agentText(agent.updates.slice(from))).toBe('hello from fake-model')
    expect(await agent.stop()).toBe(0)

    expect(agent.audit.problems).toEqual([])
    for (const line of [
      ...firstOut,
      ...agent.audit.entries.filter((e) => e.dir === 'out').map((e) => e.line),
    ])
      expect(line).not.toContain(KEY)
    expect(agent.stderr).not.toContain(KEY)
    expect(readFileSync(home.configFile, 'utf8')).not.toContain(KEY)
    expect(allFileText(agent.storeDir)).not.toContain(KEY)
    expect(allFileText(join(home.dir))).toContain(KEY) // credentials.json only
    expect(home.credentialsMode()).toBe(0o600)
  })
})
