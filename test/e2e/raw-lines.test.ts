import { afterEach, describe, expect, it, vi } from 'vitest'
import { AgentProcess } from '../support/agent-process.js'

let agent: AgentProcess | undefined
afterEach(async () => {
  vi.restoreAllMocks()
  await agent?.stop()
  agent?.cleanup()
  agent = undefined
})

describe('the e2e client (AgentProcess)', () => {
  it('keeps answers to raw lines from the official client, which would report them as unknown', async () => {
    const errors = vi.spyOn(console, 'error')
    agent = new AgentProcess()
    await agent.initialize()
    agent.writeRaw('{"jsonrpc":"2.0","id":"raw","method":"session/list","params":{}}\n')
    agent.writeRaw('{"jsonrpc":"2.0","method":"nope","id":null}\n[]\n')
    // The agent answers in order: once the client has this answer, it has read the raw ones' too.
    await agent.agent.request('session/list', {})
    expect(agent.audit.outgoing().find((m) => m.id === 'raw')).toHaveProperty('result')
    expect(errors.mock.calls.filter((call) => String(call[0]).includes('unknown request'))).toEqual([])
  })
})
