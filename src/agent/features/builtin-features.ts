import { compactionFeature } from '../compaction/compact-command.js'
import { goalsFeature } from '../goals/goals-feature.js'
import { mcpFeature } from '../mcp/mcp-feature.js'
import { planFeature } from '../plan/update-plan-tool.js'
import { rewindFeature } from '../rewind/rewind-command.js'
import { steeringFeature } from '../steering/steering.js'
import { subagentsFeature } from '../subagents/subagents-feature.js'
import { instructionsFeature } from '../turn/commands/reload-instructions-command.js'
import { sessionCommands } from '../turn/commands/session-commands.js'
import type { Feature } from './agent-feature.js'

/**
 * The agent's features, in the order their commands are listed and their tools registered. A new
 * feature is a file exporting a {@link Feature} and a line here.
 */
export const BUILTIN_FEATURES: readonly Feature[] = [
  sessionCommands,
  planFeature,
  rewindFeature,
  compactionFeature,
  instructionsFeature,
  subagentsFeature,
  goalsFeature,
  steeringFeature,
  mcpFeature,
]
