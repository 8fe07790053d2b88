export { AbortedError, abortable, isAbortError, raceAbort } from '../lib/abort.js'
export { builtinTools } from './builtin-tools.js'
export { compactionNotice } from './compaction/compaction-notice.js'
export { type CompactionSettings, DEFAULT_COMPACT_AT } from './compaction/turn-compaction.js'
export * from './config/modes.js'
export * from './config/permissions.js'
export * from './config/session-config.js'
export * from './errors.js'
export { AGENT_EVENT_TYPES } from './events.js'
export { type Notice, NoticeChannel, type NoticeFallback, noticeUpdate } from './notices/notice.js'
export * from './providers/index.js'
export {
  type AgentConfig,
  AgentService,
  agentPlugin,
  type SubagentConfig,
  turnOutcome,
} from './service.js'
export { contentToText } from './shared/content-text.js'
export * from './subagents/index.js'
export * from './tools/index.js'
export { parseCommand, SLASH_COMMANDS, type SlashCommand } from './turn/commands.js'
export { sessionUsageUpdate } from './turn/step-usage.js'
export { CANCELLED_TOOL_OUTPUT } from './turn/turn-run.js'
export type * from './types.js'
