import { describe, expect, it } from 'vitest'
import { AgentProcess } from '../support/agent-process.js'
import { configAgentSetup } from '../support/config-agent.js'
import type { ConfigHome } from '../support/config-home.js'
import { completionStream, type FakeOpenAi, startFakeOpenAi } from '../support/fake-openai.js'
import { agentText } from './updates.js'

/**
 * Flags over the configuration file, field by field: a model flag alone picks that model on the
 * file's provider, with the file's key; only a flag naming another server replaces the provider.
 */

const KEY = 'sk-file-key-41d2'

const fixture = configAgentSetup()
let agent: AgentProcess | undefined

async function configured(): Promise<{ home: ConfigHome; fake: FakeOpenAi }> {
  const fake = await fixture.fake(
    startFakeOpenAi((request) => ({
      stream: completionStream({ text: `hello from ${String(request.body?.model)}` }),
    })),
  )
  const home = fixture.home()
  home.writeConfig({
    providers: {
      fake: {
        baseUrl: fake.url,
        apiKeyEnv: 'FAKE_PROVIDER_KEY',
        models: [{ name: 'fake-model' }, { name: 'listed-model', title: 'Listed' }],
      },
    },
    defaultModel: 'fake/fake-model',
  })
  return { home, fake }
}

const currentModel = (created: { configOptions?: readonly unknown[] | null }) =>
  (created.configOptions as { id: string; currentValue?: string }[] | undefined)?.find(
    (o) => o.id === 'model',
  )?.currentValue

describe('a model flag over a configuration file', () => {
  it.each([
    [['--model-name', 'other-model,listed-model']],
    [['--model', 'openai', '--model-name', 'other-model,fake/listed-model']],
  ])('%j picks those models on the file provider, with its key', async (args) => {
    const { home, fake } = await configured()
    agent = fixture.agent(new AgentProcess({ env: home.env({ FAKE_PROVIDER_KEY: KEY }), args }))
    await agent.initialize()
    const created = await agent.agent.request('session/new', { cwd: agent.cwd, mcpServers: [] })
    expect(currentModel(created)).toBe('fake/other-model')
    const from = agent.updates.length
    const answer = await agent.agent.request('session/prompt', {
      sessionId: created.sessionId,
      prompt: [{ type: 'text', text: 'hi' }],
    })
    expect(answer.stopReason).toBe('end_turn')
    expect(agentText(agent.updates.slice(from))).toBe('hello from other-model')
    expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`)

    await agent.agent.request('session/set_config_option', {
      sessionId: created.sessionId,
      configId: 'model',
      value: 'fake/listed-model',
    })
    await agent.agent.request('session/prompt', {
      sessionId: created.sessionId,
      prompt: [{ type: 'text', text: 'again' }],
    })
    expect(fake.requests.at(-1)?.body).toMatchObject({ model: 'listed-model' })
    expect(await agent.stop()).toBe(0)
  })

  it('--base-url names another server: the command line replaces the file provider', async () => {
    const { home, fake } = await configured()
    const other = await fixture.fake(
      startFakeOpenAi(() => ({ stream: completionStream({ text: 'from the other server' }) })),
    )
    agent = fixture.agent(
      new AgentProcess({
        env: home.env({ FAKE_PROVIDER_KEY: KEY, DSH_API_KEY: 'sk-flag-key' }),
        args: ['--model', 'openai', '--base-url', other.url, '--model-name', 'flag-model'],
      }),
    )
    await agent.initialize()
    const created = await agent.agent.request('session/new', { cwd: agent.cwd, mcpServers: [] })
    expect(currentModel(created)).toBe('flag-model')
    await agent.agent.request('session/prompt', {
      sessionId: created.sessionId,
      prompt: [{ type: 'text', text: 'hi' }],
    })
    expect(other.requests.at(-1)?.body).toMatchObject({ model: 'flag-model' })
    expect(other.requests.at(-1)?.headers.authorization).toBe('Bearer sk-flag-key')
    expect(fake.requests).toEqual([])
    expect(await agent.stop()).toBe(0)
  })
})
