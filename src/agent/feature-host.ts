import type { Context } from 'cordis'
import type { AgentConfig } from './config/agent-config.js'
import type { FeatureHost } from './features/agent-feature.js'

/** What of the agent its features are handed (`AgentService` has it). */
type HostingAgent = Pick<
  FeatureHost,
  'provider' | 'maxSteps' | 'tools' | 'isRunning' | 'runTurn' | 'permissionsOf' | 'restoreFiles'
> & { config: FeatureHost['sessionConfig'] }

/** What `agent` (configured with `config`, in `ctx`) hands each of its features. */
export function featureHost(ctx: Context, agent: HostingAgent, config: AgentConfig): FeatureHost {
  return {
    config,
    provider: agent.provider,
    maxSteps: agent.maxSteps,
    sessions: () => ctx.sessions,
    tools: agent.tools,
    logger: (name) => ctx.logger(name),
    toolNames: (sessionId) =>
      agent.tools
        .forSession(sessionId)
        .specs()
        .map((spec) => spec.name),
    sessionConfig: (session) => agent.config(session),
    isRunning: (sessionId) => agent.isRunning(sessionId),
    runTurn: (session, request) => agent.runTurn(session, request),
    permissionsOf: (sessionId) => agent.permissionsOf(sessionId),
    restoreFiles: (request) => agent.restoreFiles(request),
  }
}
