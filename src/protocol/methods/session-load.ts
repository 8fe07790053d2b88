import { projectUpdates } from '../../session/index.js'
import { connectMcpServers, mcpServerConfigs } from '../mcp-servers.js'
import { defineMethod } from '../method.js'
import { openSessionInCwd } from './session-access.js'

/**
 * `session/load`: makes the session live and replays its whole history (the store's projection,
 * each update with `_meta.dsh.seq`) as `session/update` notifications, connects its MCP servers,
 * then answers.
 */
export const sessionLoadMethod = defineMethod({
  name: 'session/load',
  advertise(capabilities) {
    capabilities.loadSession = true
  },
  async handle(params, call) {
    const servers = mcpServerConfigs('session/load', params.mcpServers)
    const session = await openSessionInCwd(params, 'session/load', call)
    for (const update of projectUpdates(session.id, session.events())) call.notify(update)
    await connectMcpServers(call, session, servers)
    return {}
  },
})

/** `session/resume`: makes the session live without replaying anything, and connects its MCP servers. */
export const sessionResumeMethod = defineMethod({
  name: 'session/resume',
  advertise(capabilities) {
    capabilities.sessionCapabilities.resume = {}
  },
  async handle(params, call) {
    const servers = mcpServerConfigs('session/resume', params.mcpServers)
    const session = await openSessionInCwd(params, 'session/resume', call)
    await connectMcpServers(call, session, servers)
    return {}
  },
})
