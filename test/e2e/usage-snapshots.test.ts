import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe, expect, it } from 'vitest'
import {
  completionStream,
  type FakeOpenAi,
  type FakeReply,
  type FakeStreamStep,
  startFakeOpenAi,
  usageChunk,
} from '../support/fake-openai.js'
import { dsh, fork, prompt } from '../support/snapshot-client.js'
import { expectScenarioSnapshot, runScenario, waitForUpdate } from '../support/snapshot-scenario.js'

/**
 * Transcript snapshots of usage, cost and notices (test/snapshots/usage-*): a usage_update after
 * every model step, the turn's usage in the prompt answer, the cost recorded per step and per
 * turn in the store, restored by load, zero for a fork child, listed by session/list; a retry
 * after a 429 and an MCP server that cannot start, as `notice`s for a client with
 * `session.notices` and as today's agent message (or nothing: the retry) for one without.
 */

let fake: FakeOpenAi | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

/** `steps` (a completion ending in `[DONE]`) with a usage chunk before `[DONE]`. */
function withUsage(
  steps: FakeStreamStep[],
  prompt: number,
  completion: number,
  extra: object,
): FakeStreamStep[] {
  return [...steps.slice(0, -1), usageChunk(prompt, completion, extra), { data: '[DONE]' }]
}

/** A 429 (retried at once), then a step listing the project, then the answer: both report usage. */
const TURN: readonly FakeReply[] = [
  { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'Rate limit reached' } } },
  {
    stream: withUsage(
      completionStream({
        reasoning: 'Look first.',
        toolCalls: [{ id: 'call_ls', name: 'list_directory', arguments: '{}' }],
      }),
      1200,
      40,
      { prompt_tokens_details: { cached_tokens: 1000 }, completion_tokens_details: { reasoning_tokens: 12 } },
    ),
  },
  {
    stream: withUsage(completionStream({ text: 'The project is empty.' }), 1300, 10, {
      prompt_tokens_details: { cached_tokens: 1200 },
    }),
  },
]

const MISSING_MCP: acp.McpServer = { name: 'missing', command: '/nonexistent/mcp-server', args: [], env: [] }

describe('usage and notice transcript snapshots', () => {
  it('usage-priced-notices: a window and prices; a client with session.notices', async () => {
    fake = await startFakeOpenAi([...TURN, ...TURN.slice(1)])
    const args = [
      ...['--model', 'openai', '--base-url', fake.url, '--model-name', 'fake-model'],
      ...['--context-window', '2000', '--price-input', '0.27', '--price-cached-input', '0.07'],
      ...['--price-output', '1.1'],
    ]
    const output = await runScenario(async (s) => {
      const agent = s.start({ args })
      await agent.agent.request('initialize', {
        protocolVersion: 1,
        clientCapabilities: { session: { notices: {} } },
      })
      const { sessionId } = await agent.agent.request('session/new', {
        cwd: agent.cwd,
        mcpServers: [MISSING_MCP],
      })
      await waitForUpdate(agent, (n) => n.update.sessionUpdate === 'notice')
      const answer = await agent.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'what is in the project?' }],
      })
      expect(answer.usage).toEqual({
        totalTokens: 2550,
        inputTokens: 2500,
        outputTokens: 50,
        thoughtTokens: 12,
        cachedReadTokens: 2200,
      })
      const child = await fork(agent, sessionId)
      await waitForUpdate(
        agent,
        (n) => n.sessionId === child.sessionId && n.update.sessionUpdate === 'usage_update',
      )
      await prompt(agent, child.sessionId, 'and now?')
      await agent.agent.request('session/load', { sessionId, cwd: agent.cwd, mcpServers: [] })
      const list = await agent.agent.request('session/list', {})
      const costs = list.sessions.map((row) => dsh<{ cost?: unknown }>(row).cost)
      expect(costs).toHaveLength(2)
    })
    await expectScenarioSnapshot('usage-priced-notices', output)
  })

  it('usage-table-window: no price, the window from the built-in table; a client without notices', async () => {
    fake = await startFakeOpenAi(TURN)
    const args = ['--model', 'openai', '--base-url', fake.url, '--model-name', 'deepseek-chat']
    const output = await runScenario(async (s) => {
      const agent = s.start({ args })
      await agent.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} })
      const { sessionId } = await agent.agent.request('session/new', {
        cwd: agent.cwd,
        mcpServers: [MISSING_MCP],
      })
      await waitForUpdate(agent, (n) => n.update.sessionUpdate === 'agent_message_chunk')
      await prompt(agent, sessionId, 'what is in the project?')
      const list = await agent.agent.request('session/list', {})
      expect(list.sessions.map((row) => dsh<{ cost?: unknown }>(row).cost)).toEqual([undefined])
    })
    await expectScenarioSnapshot('usage-table-window', output)
  })
})
