import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { completionStream, type FakeOpenAi, fakeModelArgs, startFakeOpenAi } from '../support/fake-openai.js'
import { dsh, newSession, prompt } from '../support/snapshot-client.js'
import { waitForUpdate } from '../support/snapshot-scenario.js'
import { testResources } from '../support/test-resources.js'

/**
 * Usage, cost and notices through the built server: the cost a session not loaded lists comes from
 * its file's tail; configuration notices go once to each client that shows notices; a retry is
 * only logged for a client that does not.
 */

let fake: FakeOpenAi | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})
// Registered after the fake server's hook, so it runs first: the agents end before the server.
const resources = testResources()

function start(args: readonly string[], storeDir?: string): AgentProcess {
  return resources.start({ args, ...(storeDir !== undefined && { storeDir }) })
}

const scratch = (): string => resources.tempDir('dsh-acp-usage-')

const PRICES = ['--price-input', '2', '--price-output', '10', '--price-currency', 'EUR']

describe('usage and cost across processes', () => {
  it('a session not loaded lists its cost from its file; a load restores used, size and cost', async () => {
    const dir = scratch()
    const script = join(dir, 'model.json')
    writeFileSync(
      script,
      JSON.stringify([[[{ text: 'one' }, { usage: { inputTokens: 500_000, outputTokens: 100_000 } }]]]),
    )
    const args = ['--model', `script:${script}`, '--context-window', '900000', ...PRICES]
    const storeDir = join(dir, 'store')
    const first = start(args, storeDir)
    await first.initialize()
    const sessionId = await newSession(first)
    await prompt(first, sessionId, 'go')
    expect(await first.stop()).toBe(0)

    const second = start(args, storeDir)
    await second.initialize()
    const listed = await second.agent.request('session/list', {})
    expect(listed.sessions.map((row) => dsh<{ cost?: unknown }>(row).cost)).toEqual([
      { amount: 2, currency: 'EUR' },
    ])
    await second.agent.request('session/load', { sessionId, cwd: second.cwd, mcpServers: [] })
    const usage = second.updates.filter((n) => n.update.sessionUpdate === 'usage_update')
    expect(usage.map((n) => n.update)).toEqual([
      { sessionUpdate: 'usage_update', used: 600_000, size: 900_000, cost: { amount: 2, currency: 'EUR' } },
    ])
    expect(second.audit.problems).toEqual([])
  })
})

describe('configuration notices', () => {
  it('go once to a client that shows notices, never to one that does not, and are logged at start', async () => {
    const capable = start(['--context-window', '1000', ...PRICES])
    await capable.initialize({ session: { notices: {} } })
    const first = await newSession(capable)
    const notice = await waitForUpdate(capable, (n) => n.update.sessionUpdate === 'notice')
    expect(notice.sessionId).toBe(first)
    expect(notice.update).toMatchObject({
      severity: 'warning',
      title: '--context-window and --price-* ignored',
    })
    await newSession(capable)
    await prompt(capable, first, 'hello')
    expect(capable.updates.filter((n) => n.update.sessionUpdate === 'notice')).toHaveLength(1)
    expect(capable.audit.problems).toEqual([])

    const plain = start(['--price-input', '1', '--price-output', '1'])
    await plain.initialize()
    const sessionId = await newSession(plain)
    await prompt(plain, sessionId, 'hello')
    expect(plain.updates.filter((n) => n.update.sessionUpdate === 'notice')).toEqual([])
    await plain.stop()
    expect(plain.stderr).toContain('--price-* ignored: The echo model reports no token usage')
  })
})

describe('a retry for a client without notices', () => {
  it('is logged on stderr only', async () => {
    fake = await startFakeOpenAi([
      { status: 503, headers: { 'retry-after': '0' }, body: { error: { message: 'overloaded' } } },
      { stream: completionStream({ text: 'fine' }) },
    ])
    const agent = start(fakeModelArgs(fake))
    await agent.initialize()
    const sessionId = await newSession(agent)
    expect((await prompt(agent, sessionId, 'hi')).stopReason).toBe('end_turn')
    expect(agent.updates.some((n) => n.update.sessionUpdate === 'notice')).toBe(false)
    await agent.stop()
    expect(agent.stderr).toMatch(/retry 1 of 3 in 0 ms/)
  })
})
