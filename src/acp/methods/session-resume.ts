import { isValidSessionId } from '../../session/index.js'
import { withTurnState } from '../attach/turn-state.js'
import { defineMethod } from '../method.js'
import { checkedDirectories, recordDirectories } from '../requests/directories.js'
import { mcpServerConfigs } from '../requests/mcp-server-params.js'
import { connectMcpServers } from '../requests/mcp-servers.js'
import { openSessionInCwd } from '../requests/session-access.js'
import { clientSystemPrompt, recordSystemPrompt } from '../requests/system-prompt.js'
import { withWorkspaceTrust } from '../trust/trust-view.js'
import { sessionSetup } from '../views/config-options.js'
import { announceSession } from '../views/session-announce.js'

/**
 * `session/resume`: makes the session live without replaying anything, connects its MCP servers,
 * and attaches the connection: what another client of this process makes the session do from now
 * on reaches it live.
 */
export const sessionResumeMethod = defineMethod({
  name: 'session/resume',
  async handle(params, call) {
    const servers = mcpServerConfigs('session/resume', params.mcpServers)
    const directories = await checkedDirectories('session/resume', params.additionalDirectories)
    const systemPrompt = clientSystemPrompt('session/resume', params)
    if (isValidSessionId(params.sessionId)) call.sessions.letGoIfChanged(params.sessionId)
    const session = await openSessionInCwd(params, 'session/resume', call)
    call.attach(session)
    await recordDirectories(call, session, directories)
    await recordSystemPrompt(call, session, systemPrompt)
    const trust = await connectMcpServers(call, session, servers)
    announceSession(call, session)
    const answer = withWorkspaceTrust(sessionSetup(call.agent, session), trust)
    return withTurnState(answer, call.turnState(session))
  },
})
