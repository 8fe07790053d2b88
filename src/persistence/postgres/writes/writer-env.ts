import type { SessionError } from '../../../session/errors.js'
import type { SessionSummary } from '../../../session/header.js'
import type { SessionId } from '../../../session/ids.js'
import type { PostgresPool } from '../pool.js'

/** What a session's writer needs of its backend. */
export interface WriterEnv {
  readonly db: PostgresPool
  /** Resolves once the schema is migrated (rejects when it could not be). */
  readonly ready: Promise<void>
  /** The session could not be persisted: the store makes it read-only. */
  fail(id: SessionId, error: SessionError): void
  warn(message: string): void
  /** The current summary of the live session `id`, or undefined when it is not live. */
  summary(id: SessionId): SessionSummary | undefined
  /**
   * A look at other hosts' writes to `id` was skipped while a take of the pen was under way, and
   * that take failed: look again (read past the view, tell the watchers).
   */
  lookAgain(id: SessionId): void
}

/** A fork child's reference to its parent's first events, once they are committed. */
export interface BaseReference {
  readonly session: SessionId
  readonly length: number
  /** Resolves once the parent's events through `length` are committed; rejects when they cannot be. */
  readonly committed: () => Promise<void>
}
