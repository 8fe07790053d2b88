import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe, expect, it } from 'vitest'
import { startHttpMcp, type TestHttpMcp } from '../support/mcp/http-server.js'
import { eventually, serverReady } from '../support/mcp/servers.js'
import { expectCleanExit, type OpenAiAgent, openAiAgents } from '../support/openai-agent.js'

/**
 * Streamable-HTTP MCP sessions end with their ACP session: the agent terminates them (HTTP
 * DELETE) on session/close, session/delete, a reload with other servers and the agent's exit, and a
 * `session/load` of a session that is live here keeps its MCP session instead of opening a second.
 */

const start = openAiAgents()
const TOKEN = 'http-mcp-token-4242'
let server: TestHttpMcp | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const calc = (url: string): acp.McpServer => ({
  type: 'http',
  name: 'calc',
  url,
  headers: [{ name: 'Authorization', value: `Bearer ${TOKEN}` }],
})

async function connected(run: OpenAiAgent, mcp: TestHttpMcp, sessions: number): Promise<string> {
  const { sessionId } = await run.agent.agent.request('session/new', {
    cwd: run.cwd,
    mcpServers: [calc(mcp.url)],
  })
  await serverReady(() => run.agent.stderr, sessionId, 'calc')
  expect(mcp.sessions).toHaveLength(sessions)
  return sessionId
}

describe('streamable HTTP MCP sessions', () => {
  it('a load of the live session keeps its MCP session; close terminates it', async () => {
    server = await startHttpMcp(TOKEN)
    const mcp = server
    const run = await start({ script: [] })
    const sessionId = await connected(run, mcp, 1)
    await run.agent.agent.request('session/load', { sessionId, cwd: run.cwd, mcpServers: [calc(mcp.url)] })
    await run.agent.agent.request('session/resume', { sessionId, cwd: run.cwd, mcpServers: [calc(mcp.url)] })
    expect(mcp.sessions).toHaveLength(1)
    expect(mcp.terminated).toEqual([])
    await run.agent.agent.request('session/close', { sessionId })
    await eventually(() => mcp.terminated.length === 1)
    expect(mcp.terminated).toEqual(mcp.sessions)
    await expectCleanExit(run)
  })

  it('delete, a reload with other servers, and the agent’s exit each terminate the MCP session', async () => {
    server = await startHttpMcp(TOKEN)
    const mcp = server
    const run = await start({ script: [] })
    const deleted = await connected(run, mcp, 1)
    await run.agent.agent.request('session/delete', { sessionId: deleted })
    await eventually(() => mcp.terminated.length === 1)

    const reloaded = await connected(run, mcp, 2)
    await run.agent.agent.request('session/load', { sessionId: reloaded, cwd: run.cwd, mcpServers: [] })
    await eventually(() => mcp.terminated.length === 2)

    await connected(run, mcp, 3)
    await expectCleanExit(run)
    expect(mcp.terminated).toEqual(mcp.sessions)
  })
})
