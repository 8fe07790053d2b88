import { connectMcpServers, mcpServerConfigs } from '../mcp-servers.js'
import { defineMethod } from '../method.js'
import { dshMeta } from '../params.js'
import { openSessionInCwd } from './session-access.js'

/**
 * `session/fork` (ACP unstable): forks the source through `_meta.dsh.boundary` (an inclusive source
 * seq; absent: its last event) with `ctx.sessions.forkDurable`, and answers once the child is
 * durable: `{ sessionId, _meta: { dsh: { parentSession, seedLength } } }`. The child is live at once,
 * with the `mcpServers` of this request connected (a fork does not inherit its source's servers).
 * Errors: unknown source -32002; `INVALID_BOUNDARY` / `OPEN_TURN` -32602 with `data.code` and the
 * fork error's data; a relative `cwd` or one that is not the source's -32602.
 */
export const sessionForkMethod = defineMethod({
  name: 'session/fork',
  advertise(capabilities) {
    capabilities.sessionCapabilities.fork = {}
  },
  async handle(params, call) {
    const servers = mcpServerConfigs('session/fork', params.mcpServers)
    const source = await openSessionInCwd(params, 'session/fork', call)
    const boundary = dshMeta(params)?.boundary
    const child = await call.sessions.forkDurable(source, boundary as number | undefined)
    await connectMcpServers(call, child, servers)
    return {
      sessionId: child.id,
      _meta: { dsh: { parentSession: source.id, seedLength: child.header.seedLength ?? 0 } },
    }
  },
})
