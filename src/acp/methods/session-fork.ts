import { defineMethod } from '../method.js'
import { checkedDirectories, recordDirectories } from '../requests/directories.js'
import { forkBoundary } from '../requests/fork-point.js'
import { mcpServerConfigs } from '../requests/mcp-server-params.js'
import { connectMcpServers } from '../requests/mcp-servers.js'
import { openSessionInCwd } from '../requests/session-access.js'
import { clientSystemPrompt, recordSystemPrompt } from '../requests/system-prompt.js'
import { withWorkspaceTrust } from '../trust/trust-view.js'
import { sessionSetup } from '../views/config-options.js'
import { announceSession } from '../views/session-announce.js'

/**
 * `session/fork` (ACP unstable): forks the source at its fork point (`_meta.dsh.boundary`, an
 * inclusive seq; `_meta.dsh.messageId`; or a JetBrains AIR `_meta.jetbrains.air.fork`: see
 * `fork-point.ts`; absent: its last event) with `ctx.sessions.forkDurable`, and answers once the
 * child is durable: `{ sessionId, configOptions, modes, _meta: { dsh: { parentSession, seedLength } } }`,
 * then sends the child's command list and title. The child is live at once.
 * The child gets the `mcpServers` of this request (a fork does not inherit its source's servers).
 * Errors: unknown source -32002; `INVALID_BOUNDARY` / `OPEN_TURN` -32602 with `data.code` and the
 * fork error's data; a relative `cwd` or one that is not the source's -32602.
 */
export const sessionForkMethod = defineMethod({
  name: 'session/fork',
  async handle(params, call) {
    const servers = mcpServerConfigs('session/fork', params.mcpServers)
    const directories = await checkedDirectories('session/fork', params.additionalDirectories)
    const systemPrompt = clientSystemPrompt('session/fork', params)
    const source = await openSessionInCwd(params, 'session/fork', call)
    const child = await call.sessions.forkDurable(source, forkBoundary(source, params._meta))
    await recordDirectories(call, child, directories)
    await recordSystemPrompt(call, child, systemPrompt)
    const trust = await connectMcpServers(call, child, servers)
    announceSession(call, child)
    const answer = {
      sessionId: child.id,
      ...sessionSetup(call.agent, child),
      _meta: { dsh: { parentSession: source.id, seedLength: child.header.seedLength ?? 0 } },
    }
    return withWorkspaceTrust(answer, trust)
  },
})
