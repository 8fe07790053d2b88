import { describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { expectScenarioSnapshot, runScenario } from '../support/snapshot-scenario.js'

/** Writes one raw line and resolves the one message the agent answers it with. */
async function sendRaw(agent: AgentProcess, line: string): Promise<Record<string, unknown>> {
  const before = agent.audit.outgoing().length
  agent.writeRaw(`${line}\n`)
  while (agent.audit.outgoing().length === before) {
    if (agent.child.exitCode !== null) throw new Error(`the agent exited: ${agent.stderr}`)
    await new Promise((done) => setTimeout(done, 5))
  }
  const answers = agent.audit.outgoing().slice(before)
  expect(answers).toHaveLength(1)
  return answers[0] as Record<string, unknown>
}

describe('initialize and malformed input (transcript snapshots)', () => {
  it('initialize-fork-enabled: the default server advertises fork and every lifecycle method', async () => {
    const output = await runScenario(async (s) => {
      const agent = s.start()
      const init = await agent.initialize()
      expect(init.agentCapabilities?.loadSession).toBe(true)
      expect(init.agentCapabilities?.sessionCapabilities).toEqual({
        list: {},
        resume: {},
        close: {},
        delete: {},
        fork: {},
      })
    })
    await expectScenarioSnapshot('initialize-fork-enabled', output)
  })

  it('malformed-input: unparsable line, invalid envelope, batch and unknown method each get one error', async () => {
    const output = await runScenario(async (s) => {
      const agent = s.start()
      await agent.initialize()
      expect(await sendRaw(agent, '{"jsonrpc":"2.0","id":"raw-1","method":')).toMatchObject({
        id: null,
        error: { code: -32700 },
      })
      expect(
        await sendRaw(agent, '{"jsonrpc":"1.0","id":"raw-2","method":"session/list","params":{}}'),
      ).toMatchObject({ id: 'raw-2', error: { code: -32600 } })
      expect(
        await sendRaw(agent, '[{"jsonrpc":"2.0","id":"raw-3","method":"session/list","params":{}}]'),
      ).toMatchObject({ id: null, error: { code: -32600 } })
      expect(
        await sendRaw(agent, '{"jsonrpc":"2.0","id":"raw-4","method":"session/rewind","params":{}}'),
      ).toMatchObject({ id: 'raw-4', error: { code: -32601 } })
      const { sessions } = await agent.agent.request('session/list', {})
      expect(sessions).toEqual([])
    })
    await expectScenarioSnapshot('malformed-input', output)
  })
})
