import { positive } from '../config/agent-config.js'
import type { AgentFeature, FeatureHost } from '../features/agent-feature.js'
import { delegateTool } from './delegate-tool.js'

/** Fork-based subagents: the `delegate` tool, unless `subagents: false` (see `AgentConfig.subagents`). */
export function subagentsFeature(host: FeatureHost): AgentFeature | undefined {
  const { subagents } = host.config
  if (subagents === false) return undefined
  const tool = delegateTool({
    sessions: host.sessions,
    runTurn: host.runTurn,
    maxSteps: positive('subagents.maxSteps', subagents?.maxSteps ?? host.maxSteps),
    permissionsOf: host.permissionsOf,
    toolNames: host.toolNames,
  })
  return { tools: [tool] }
}
