// The package's public entry: what a program embedding dsh-acp needs to build, extend and drive
// it. Test doubles and internals stay out (test/public-exports.test.ts keeps this list honest).

export type { CallContext } from './acp/call-context.js'
export { ErrorCode, ProtocolError } from './acp/errors.js'
export { type AcpMethod, defineMethod } from './acp/method.js'
export { acpPlugin, forkPlugin } from './acp/plugin.js'
export type { AcpServer, AgentInfo } from './acp/server.js'
export { agentPlugin } from './agent/index.js'
export { type App, type AppConfig, createApp } from './app.js'
export { persistencePlugin, resolveStoreDir } from './persistence/index.js'
export {
  type EventType,
  type JsonValue,
  Session,
  SessionError,
  SessionErrorCode,
  type SessionEvent,
  SessionForkError,
  type SessionHeader,
  type SessionId,
  SessionStore,
  type SessionSummary,
  sessionsPlugin,
} from './session/index.js'
