import { connectMcpServers, mcpServerConfigs } from '../mcp-servers.js'
import { defineMethod } from '../method.js'
import { assertWorkingDirectory } from '../params.js'

/**
 * `session/new`: a new session in an absolute `cwd` (no NUL; a directory when it exists), answered
 * once its header is durable and its MCP servers are connected (or have failed, which is reported
 * right after the response).
 */
export const sessionNewMethod = defineMethod({
  name: 'session/new',
  async handle(params, call) {
    const cwd = assertWorkingDirectory('session/new', 'cwd', params.cwd)
    const servers = mcpServerConfigs('session/new', params.mcpServers)
    const session = await call.sessions.createDurable(undefined, { meta: { cwd } })
    await connectMcpServers(call, session, servers)
    return { sessionId: session.id }
  },
})
