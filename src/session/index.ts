export * from './config.js'
export * from './errors.js'
export { resolveForkBoundary } from './fork/fork.js'
export { subagentBoundary } from './fork/subagent-fork.js'
export * from './header.js'
export * from './ids.js'
export * from './log/events.js'
export { deepFreeze, freezeJsonCopy, MAX_JSON_DEPTH, storableEventData } from './log/frozen.js'
export { boundaryStatus, type TurnSpan } from './log/log-state.js'
export * from './log/message-ids/message-ids.js'
export { type EventDataReader, storedEvent, storedLineOf, withStoredLine } from './log/stored-event.js'
export { assertEventShape } from './log/validate-event.js'
export type { CommandOutputUpdate } from './projection/command-output.js'
export * from './projection/compaction-updates.js'
export * from './projection/goal-updates.js'
export * from './projection/history.js'
export * from './projection/update-builders.js'
export * from './projection/update-types.js'
export * from './projection/updates.js'
export * from './projection/whole-messages.js'
export * from './rewind/rewind-plan.js'
export * from './rewind/rewind-points.js'
export { Session, type SessionHost } from './session.js'
// The store's listener and pen types (its methods' signatures: `store-core.ts`, `store-pens.ts`).
export type { ForeignWriteListener } from './store/foreign-writes.js'
export type { CaughtUpRange, SessionPen } from './store/pens.js'
export type {
  BoardAnswer,
  BoardCancel,
  BoardNote,
  BoardQuestion,
  SessionBoard,
  SessionPersistence,
  SessionStreams,
  StoredEventVisitor,
  StreamedChunk,
} from './store/persistence-port.js'
export * from './store/reads/paginate.js'
export * from './store/store.js'
export type { AppendListener } from './store/store-host.js'
export * from './title.js'
export * from './usage.js'
