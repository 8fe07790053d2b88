import { afterEach, describe, expect, it } from 'vitest'
import { completionStream, type FakeReply } from '../support/fake-openai.js'
import { startHttpMcp, type TestHttpMcp } from '../support/mcp/http-server.js'
import { eventually, serverReady } from '../support/mcp/servers.js'
import { expectCleanExit, type OpenAiAgent, openAiAgents } from '../support/openai-agent.js'
import { agentRequests, chunkTexts, messagesOf, toolNamesOf, updatesOfKind } from '../support/openai-wire.js'

/**
 * Streamable-HTTP MCP servers end to end: the test server runs on 127.0.0.1 and wants a bearer
 * token in a header; the agent connects per session (new, load), offers and calls the tools with
 * the permission policy, cancels calls, and never records the header.
 */

const start = openAiAgents()
const TOKEN = 'http-mcp-token-0815'
let server: TestHttpMcp | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const call = (id: string, name: string, args: unknown): FakeReply => ({
  stream: completionStream({ toolCalls: [{ id, name, arguments: JSON.stringify(args) }] }),
})
const say = (text: string): FakeReply => ({ stream: completionStream({ text }) })

function httpServer(url: string, token: string) {
  return { type: 'http', name: 'calc', url, headers: [{ name: 'Authorization', value: `Bearer ${token}` }] }
}

async function newSession(run: OpenAiAgent, mcpServers: unknown[]): Promise<string> {
  const { sessionId } = await run.agent.agent.request('session/new', { cwd: run.cwd, mcpServers } as never)
  return sessionId
}

/** Waits until the session's `calc` server is connected (servers start in the background). */
const ready = (run: OpenAiAgent, sessionId: string) => serverReady(() => run.agent.stderr, sessionId, 'calc')

const allowOnce = (app: Parameters<NonNullable<Parameters<typeof start>[0]['setupClient']>>[0]) => {
  app.onRequest('session/request_permission', () => ({
    outcome: { outcome: 'selected', optionId: 'allow_once' },
  }))
}

describe('streamable HTTP MCP servers', () => {
  it('advertises http, connects with the headers, asks permission, calls, and keeps the header out of every record', async () => {
    server = await startHttpMcp(TOKEN)
    const run = await start({
      script: [
        call('c1', 'mcp__calc__add', { a: 2, b: 3 }),
        say('five'),
        call('c2', 'mcp__calc__add', { a: 1, b: 1 }),
        say('two'),
      ],
      setupClient: allowOnce,
    })
    const init = run.agent.audit.entries.find((e) => e.dir === 'out')?.message as {
      result: { agentCapabilities: { mcpCapabilities: unknown } }
    }
    expect(init.result.agentCapabilities.mcpCapabilities).toEqual({ http: true })
    const sessionId = await newSession(run, [httpServer(server.url, TOKEN)])
    await ready(run, sessionId)
    expect((await run.prompt(sessionId, 'add')).stopReason).toBe('end_turn')
    expect(toolNamesOf(run.fake.requests[0]).filter((n) => n.startsWith('mcp__'))).toEqual([
      'mcp__calc__add',
      'mcp__calc__hang',
    ])
    expect(messagesOf(run.fake.requests[1]).at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: '5',
    })
    expect(agentRequests(run.agent.audit.entries, 'session/request_permission')).toHaveLength(1)
    expect(updatesOfKind(run.updatesOf(sessionId), 'tool_call')[0]?.update).toMatchObject({
      title: 'calc: add',
      kind: 'other',
    })
    expect(server.authorizations.every((a) => a === `Bearer ${TOKEN}`)).toBe(true)

    await run.restart()
    await run.agent.agent.request('session/load', {
      sessionId,
      cwd: run.cwd,
      mcpServers: [httpServer(server.url, TOKEN)],
    } as never)
    await ready(run, sessionId)
    expect((await run.prompt(sessionId, 'add again')).stopReason).toBe('end_turn')
    expect(messagesOf(run.fake.requests[3]).at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'c2',
      content: '2',
    })
    expect(server.calls).toEqual(['add', 'add'])

    await expectCleanExit(run)
    for (const file of run.storeFiles()) expect(file.text).not.toContain(TOKEN)
    expect(run.agent.stderr).not.toContain(TOKEN)
  })

  it('a server that refuses the connection (401) is reported, its tools are not offered, the session goes on', async () => {
    server = await startHttpMcp(TOKEN)
    const run = await start({ script: [say('fine')] })
    const sessionId = await newSession(run, [httpServer(server.url, 'wrong-token-value')])
    await eventually(() =>
      chunkTexts(run.updatesOf(sessionId), 'agent_message_chunk').join('').includes('calc'),
    )
    const notice = chunkTexts(run.updatesOf(sessionId), 'agent_message_chunk').join('')
    expect(notice).toMatch(/MCP server "calc" could not start: /)
    expect(notice).not.toContain('wrong-token-value')
    expect((await run.prompt(sessionId, 'hi')).stopReason).toBe('end_turn')
    expect(toolNamesOf(run.fake.requests[0]).some((n) => n.startsWith('mcp__'))).toBe(false)
    await expectCleanExit(run)
  })

  it('cancel during an HTTP MCP call: the server sees the cancellation, the turn ends cancelled', async () => {
    server = await startHttpMcp(TOKEN)
    const run = await start({ script: [call('c1', 'mcp__calc__hang', {})], setupClient: allowOnce })
    const sessionId = await newSession(run, [httpServer(server.url, TOKEN)])
    await ready(run, sessionId)
    const prompting = run.prompt(sessionId, 'hang')
    await eventually(() => server?.calls.includes('hang') === true)
    await run.agent.agent.notify('session/cancel', { sessionId })
    expect((await prompting).stopReason).toBe('cancelled')
    await eventually(() => server?.calls.includes('hang:cancelled') === true)
    await expectCleanExit(run)
  })
})
