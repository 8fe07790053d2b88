import { describe, expect, it } from 'vitest'
import { serverReady, stdioServer } from '../support/mcp/servers.js'
import { expectCleanExit, openAiAgents } from '../support/openai-agent.js'
import { toolNamesOf } from '../support/openai-wire.js'
import { conversationModel, lastUserText, type ModelMove } from '../support/prefix-cache.js'

/**
 * A subagent inherits its parent's MCP tools: it is told about the same tools (its first request
 * keeps the parent's exact prefix) and runs them through the parent's connections.
 */

const start = openAiAgents()

const REMEMBER = 'remember: the code word is kiwi'
const ASK = 'ask a helper to echo the code word'
const TASK = 'echo the code word with the files server'

const TABLE: Record<string, ModelMove[]> = {
  [REMEMBER]: [{ text: 'Noted.' }],
  [ASK]: [
    { calls: [{ id: 'call_d', name: 'delegate', arguments: { task: TASK, title: 'Echo' } }] },
    { text: 'The helper echoed it.' },
  ],
  [TASK]: [
    { calls: [{ id: 'call_e', name: 'mcp__files__echo', arguments: { text: 'kiwi' } }] },
    { text: 'It said echo: kiwi.' },
  ],
}

describe('a subagent and its parent’s MCP servers', () => {
  it('offers the parent’s MCP tools to the child and runs them on the parent’s connection', async () => {
    const run = await start({ script: conversationModel(TABLE).script })
    const { sessionId } = await run.agent.agent.request('session/new', {
      cwd: run.cwd,
      mcpServers: [stdioServer('files')],
    })
    await serverReady(() => run.agent.stderr, sessionId, 'files')
    expect((await run.prompt(sessionId, REMEMBER)).stopReason).toBe('end_turn')
    expect((await run.prompt(sessionId, ASK)).stopReason).toBe('end_turn')

    const parentAsk = run.fake.requests.find((r) => lastUserText(r.body) === ASK)
    const childFirst = run.fake.requests.find((r) => lastUserText(r.body) === TASK)
    expect(toolNamesOf(parentAsk)).toContain('mcp__files__echo')
    expect(toolNamesOf(childFirst)).toEqual(toolNamesOf(parentAsk))
    expect(JSON.stringify(childFirst?.body?.tools)).toBe(JSON.stringify(parentAsk?.body?.tools))

    const { sessions } = await run.agent.agent.request('session/list', {})
    const child = sessions.find((s) => s.sessionId !== sessionId)?.sessionId as string
    const result = run.loggedEvents(child).find((e) => e.type === 'tool/result')
    expect(result?.data).toMatchObject({ callId: 'call_e', output: 'echo: kiwi' })
    expect(result?.data).not.toHaveProperty('isError', true)
    const parentResult = run.loggedEvents(sessionId).find((e) => e.type === 'tool/result')
    expect(parentResult?.data).toMatchObject({ callId: 'call_d', output: 'It said echo: kiwi.' })
    await expectCleanExit(run)
  })
})
