import { afterEach, describe, expect, it } from 'vitest'
import { AgentProcess } from '../support/agent-process.js'
import { ConfigHome } from '../support/config-home.js'
import {
  chunk,
  completionStream,
  type FakeOpenAi,
  type FakeReply,
  startFakeOpenAi,
} from '../support/fake-openai.js'
import { agentText } from './updates.js'

let home: ConfigHome | undefined
let agent: AgentProcess | undefined
const fakes: FakeOpenAi[] = []
afterEach(async () => {
  await agent?.stop()
  agent?.cleanup()
  for (const fake of fakes.splice(0)) await fake.close()
  home?.cleanup()
  home = agent = undefined
})

/** A server that answers `hello from <name>`, or what `first` says to its first request. */
async function server(name: string, first?: () => FakeReply): Promise<FakeOpenAi> {
  const fake = await startFakeOpenAi((_request, index) =>
    index === 0 && first ? first() : { stream: completionStream({ text: `hello from ${name}` }) },
  )
  fakes.push(fake)
  return fake
}

describe('providers/set and providers/disable apply to the next turn, without a restart', () => {
  it('a new baseUrl answers the next turn; a running turn keeps its server; a disabled provider refuses its next turn', async () => {
    let release = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    let arrived = () => {}
    const asked = new Promise<void>((resolve) => {
      arrived = resolve
    })
    // A's first answer waits, then asks for a tool: the turn's second step must still go to A.
    const a = await server('A', () => {
      arrived()
      return {
        stream: [
          chunk({ role: 'assistant', content: '' }),
          { until: held },
          ...completionStream({ toolCalls: [{ id: 'c1', name: 'list_directory', arguments: '{}' }] }).slice(
            1,
          ),
        ],
      }
    })
    const b = await server('B')
    const c = await server('C')
    home = new ConfigHome()
    home.writeConfig({
      providers: {
        main: { baseUrl: a.url, keyRequired: false, models: [{ name: 'm' }] },
        side: { baseUrl: c.url, keyRequired: false, models: [{ name: 's' }] },
      },
      defaultModel: 'main/m',
    })
    const ag = new AgentProcess({ env: home.env() })
    agent = ag
    await ag.initialize()
    const request = (method: string, params: unknown) => ag.agent.request<unknown>(method, params)
    const { sessionId } = await ag.agent.request('session/new', { cwd: ag.cwd, mcpServers: [] })
    const prompt = (text: string) =>
      ag.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] })

    // A turn is running on A (its first request is held) when main is pointed at B.
    const running = prompt('first')
    await asked
    expect(await request('providers/set', { providerId: 'main', apiType: 'openai', baseUrl: b.url })).toEqual(
      {},
    )
    release()
    expect((await running).stopReason).toBe('end_turn')
    expect(a.requests).toHaveLength(2) // the held step (a tool call), then the step after the tool
    expect(agentText(ag.updates)).toContain('hello from A')
    expect(b.requests).toHaveLength(0)

    // The next turn goes to the new baseUrl.
    const from = ag.updates.length
    expect((await prompt('second')).stopReason).toBe('end_turn')
    expect(agentText(ag.updates.slice(from))).toBe('hello from B')
    expect(a.requests).toHaveLength(2)

    // Disable `side` while the session uses it: its next turn fails, saying why.
    await ag.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'side/s' })
    expect((await prompt('third')).stopReason).toBe('end_turn')
    expect(c.requests).toHaveLength(1)
    expect(await request('providers/disable', { providerId: 'side' })).toEqual({})
    const afterDisable = ag.updates.length
    const refused = await prompt('fourth').then(
      (answer) => ({ answer, error: undefined }),
      (error: { message: string }) => ({ answer: undefined, error }),
    )
    const said = `${refused.error?.message ?? ''} ${agentText(ag.updates.slice(afterDisable))}`
    expect(said).toContain('the provider side was disabled')
    expect(c.requests).toHaveLength(1)
    // Enabled again with providers/set: the next turn is answered.
    await request('providers/set', { providerId: 'side', apiType: 'openai', baseUrl: c.url })
    expect((await prompt('fifth')).stopReason).toBe('end_turn')
    expect(c.requests).toHaveLength(2)
    expect(ag.audit.problems).toEqual([])
  })
})
