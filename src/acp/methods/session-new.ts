import { ProtocolError } from '../errors.js'
import { defineMethod } from '../method.js'
import { checkedDirectories, recordDirectories } from '../requests/directories.js'
import { mcpServerConfigs } from '../requests/mcp-server-params.js'
import { connectMcpServers } from '../requests/mcp-servers.js'
import { assertWorkingDirectory } from '../requests/params.js'
import { clientSystemPrompt, recordSystemPrompt } from '../requests/system-prompt.js'
import { withWorkspaceTrust } from '../trust/trust-view.js'
import { sessionSetup } from '../views/config-options.js'
import { announceSession } from '../views/session-announce.js'

/**
 * `session/new`: a new session in `cwd` (an existing directory, see `assertWorkingDirectory`), answered
 * once its header is durable (and, for a model that takes a system prompt, the prompt's inputs: see
 * `AgentService.prepareSession`), with its `configOptions` and `modes` (all defaults); its MCP servers connected
 * (or failed, which is reported right after the response).
 */
export const sessionNewMethod = defineMethod({
  name: 'session/new',
  async handle(params, call) {
    const cwd = assertWorkingDirectory('session/new', 'cwd', params.cwd)
    const missing = call.setup.missingAuth()
    if (missing !== undefined) throw ProtocolError.authRequired(missing)
    const servers = mcpServerConfigs('session/new', params.mcpServers)
    const directories = await checkedDirectories('session/new', params.additionalDirectories)
    const systemPrompt = clientSystemPrompt('session/new', params)
    const session = await call.sessions.createDurable(undefined, { meta: { cwd } })
    call.attach(session)
    await recordDirectories(call, session, directories)
    await recordSystemPrompt(call, session, systemPrompt)
    await call.agent.prepareSession(session)
    const trust = await connectMcpServers(call, session, servers)
    announceSession(call, session)
    return withWorkspaceTrust({ sessionId: session.id, ...sessionSetup(call.agent, session) }, trust)
  },
})
