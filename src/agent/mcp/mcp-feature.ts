import type { AgentFeature, FeatureHost } from '../features/agent-feature.js'
import { modelSampler } from './asks/model-sampler.js'
import { McpSessions } from './session-mcp.js'

/**
 * The MCP servers of each live session: a {@link McpSessions} for the protocol layer
 * (`agent.features.get(McpSessions)`, which connects a session's servers), their start waited for
 * before a model request, their notices flushed once a turn is over, closed with their session and
 * with the agent.
 */
export function mcpFeature(host: FeatureHost): AgentFeature {
  const options = host.config.mcp ?? {}
  const mcp = new McpSessions({
    registry: host.tools,
    logger: host.logger('mcp'),
    timeoutMs: options.timeoutMs ?? 60_000,
    isBusy: host.isRunning,
    ...(options.samplingPerTurn !== undefined && { samplingPerTurn: options.samplingPerTurn }),
    sampler: modelSampler({
      provider: host.provider,
      sessions: host.sessions,
      config: host.sessionConfig,
      permissionsOf: host.permissionsOf,
    }),
  })
  return {
    api: mcp,
    beforeStep: (session, send, signal) => mcp.beforeStep(session, send, signal),
    // Notices held while the turn ran go out once its log is closed.
    turn: (session, request) => ({
      settled: () => {
        if (session.openTurn === undefined) mcp.flush(session, request.sendUpdate)
      },
    }),
    forget: (sessionId) => void mcp.close(sessionId),
    dispose: () => mcp.closeAll(),
  }
}
