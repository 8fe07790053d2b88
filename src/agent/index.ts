export { AbortedError, abortable, isAbortError, raceAbort, sleep } from './abort.js'
export { parseCommand, SLASH_COMMANDS, type SlashCommand } from './commands.js'
export { contentToText, plainText } from './content.js'
export * from './errors.js'
export { AGENT_EVENT_TYPES } from './events.js'
export * from './modes.js'
export * from './permissions.js'
export * from './providers/index.js'
export {
  type AgentConfig,
  AgentService,
  agentPlugin,
  type SubagentConfig,
  turnOutcome,
} from './service.js'
export * from './session-config.js'
export * from './subagents/index.js'
export * from './tools/index.js'
export { CANCELLED_TOOL_OUTPUT } from './turn-run.js'
export type * from './types.js'
