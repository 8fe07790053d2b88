import type { SessionId } from './ids.js'
import type { Cost } from './log/events.js'

/**
 * What marks a session as a subagent: the tool call of its parent (`parentSession`) that spawned
 * it. `callId` is unique within the parent's `turn`.
 */
export interface SubagentMarker {
  readonly turn: number
  readonly callId: string
}

/** Out-of-log metadata of a session. Never changes after creation, except through log events. */
export interface SessionHeader {
  readonly id: SessionId
  /** ISO-8601 time of creation. */
  readonly createdAt: string
  /** Absolute working directory the session belongs to. */
  readonly cwd: string
  /** The session this one was forked from. */
  readonly parentSession?: SessionId
  /** How many events were copied from the parent: the child's own events start at seq seedLength + 1. */
  readonly seedLength?: number
  readonly title?: string
  /** Set when the session is a subagent: which tool call of `parentSession` spawned it. */
  readonly subagent?: SubagentMarker
}

/** What a caller may set when creating a session. */
export interface SessionMeta {
  readonly cwd?: string
  readonly title?: string
  readonly parentSession?: SessionId
  readonly seedLength?: number
  readonly createdAt?: string
}

/** A listing entry: what `session/list` needs, read without reading the whole log. */
export interface SessionSummary {
  readonly sessionId: SessionId
  readonly cwd: string
  readonly createdAt: string
  /** ISO-8601 time of the last event (or of creation). */
  readonly updatedAt: string
  readonly title?: string
  readonly parentSession?: SessionId
  readonly seedLength?: number
  readonly subagent?: SubagentMarker
  /** The session's own last `session/archived` said true (a fork child does not inherit it). */
  readonly archived?: true
  /** The session's own cost so far (see `ownCost`), when some step of it was priced. */
  readonly cost?: Cost
  readonly live: boolean
}

/** Which sessions a listing returns by archive state (ACP `SessionArchiveFilter`). */
export type ArchiveFilter = 'exclude' | 'include' | 'only'

/** The archive filters a listing understands; anything else is refused by the caller. */
export const ARCHIVE_FILTERS: readonly ArchiveFilter[] = ['exclude', 'include', 'only']

export interface ListOptions {
  readonly cwd?: string
  /** Opaque cursor from a previous page. */
  readonly cursor?: string
  /** Page size; default 50, at most 1000. */
  readonly limit?: number
  /** Archived sessions: left out (`exclude`, the default), listed too, or listed alone. */
  readonly archived?: ArchiveFilter
}

export interface SessionPage {
  readonly sessions: readonly SessionSummary[]
  readonly nextCursor?: string
}
