import { SessionError, SessionErrorCode, SessionForkError } from '../errors.js'
import type { SessionHeader, SessionMeta, SubagentMarker } from '../header.js'
import { assertSessionId, type SessionId } from '../ids.js'
import type { SessionEvent } from '../log/events.js'
import { seedLog } from '../log/log-building.js'
import { LogState, turnsBefore } from '../log/log-state.js'
import { Session, type SessionHost } from '../session.js'

/** How the store makes a session that is not live yet: from a seed, or as a fork child. */

export interface CreateOptions {
  /** A valid log prefix: events with seq 1..n that satisfy every invariant. */
  readonly seed?: readonly SessionEvent[]
  readonly meta?: SessionMeta
}

/**
 * A new session `sessionId` (already checked and free) holding `options.seed`, deep-copied and
 * frozen: `INVALID_SEED` when it is no valid log prefix or `meta.seedLength` differs from its length.
 */
export function seededSession(
  sessionId: SessionId,
  options: CreateOptions,
  defaults: { readonly now: () => string; readonly cwd: string },
  host: SessionHost,
): Session {
  const seed = options.seed ?? []
  const meta = options.meta ?? {}
  if (meta.seedLength !== undefined && meta.seedLength !== seed.length) {
    throw new SessionError(
      SessionErrorCode.INVALID_SEED,
      `seedLength ${meta.seedLength} != seed of ${seed.length}`,
      {
        sessionId,
      },
    )
  }
  const { log, state } = seedLog(seed, sessionId)
  const header: SessionHeader = {
    id: sessionId,
    createdAt: meta.createdAt ?? defaults.now(),
    cwd: meta.cwd ?? defaults.cwd,
    ...(meta.parentSession !== undefined && { parentSession: meta.parentSession }),
    ...(meta.seedLength !== undefined && { seedLength: meta.seedLength }),
    ...(meta.title !== undefined && { title: meta.title }),
  }
  return new Session(header, log, state, host)
}

/** What a fork child gets besides its parent's: a subagent marker, and a title (when `title` is a key). */
export interface ForkChildExtra {
  readonly subagent?: SubagentMarker
  readonly title?: string
}

/** What a fork child is made of: its parent, how many of its events it shares, its id and extras. */
export interface ForkSeed {
  readonly parent: Session
  /** The parent's first events the child shares (a closed boundary). */
  readonly copied: number
  readonly childId: SessionId
  readonly extra: ForkChildExtra
}

/** Checks a fork child's id: `INVALID_SESSION_ID`, or `SESSION_ALREADY_EXISTS` when it is `taken`. */
export function assertChildId(childId: SessionId, taken: (id: SessionId) => boolean): void {
  try {
    assertSessionId(childId)
  } catch (error) {
    throw new SessionForkError(SessionErrorCode.INVALID_SESSION_ID, (error as Error).message, {
      sessionId: childId,
    })
  }
  if (taken(childId)) throw childExists(childId)
}

/** The `SESSION_ALREADY_EXISTS` a fork throws for a child id that is taken. */
export function childExists(childId: SessionId): SessionForkError {
  return new SessionForkError(SessionErrorCode.SESSION_ALREADY_EXISTS, `session ${childId} already exists`, {
    sessionId: childId,
  })
}

/**
 * A child of `parent` seeded with its first `copied` events (a closed boundary), sharing them, not
 * live yet: `parentSession`, `seedLength`, the parent's `cwd` and explicit title unless `extra`
 * names one.
 */
export function forkChild(
  { parent, copied, childId, extra }: ForkSeed,
  createdAt: string,
  host: SessionHost,
): Session {
  const title = 'title' in extra ? extra.title : parent.explicitTitle
  const header: SessionHeader = {
    id: childId,
    createdAt,
    cwd: parent.cwd,
    parentSession: parent.id,
    seedLength: copied,
    ...(title !== undefined && { title }),
    ...(extra.subagent !== undefined && { subagent: extra.subagent }),
  }
  const state = new LogState(turnsBefore(parent.turnSpans(), copied), copied)
  return new Session(header, parent.eventsThrough(copied), state, host)
}

/** Throws `SESSION_ALREADY_EXISTS` when `id` is `taken` (live or being loaded). */
export function assertFreeId(id: SessionId, taken: (id: SessionId) => boolean): void {
  if (taken(id)) {
    throw new SessionError(SessionErrorCode.SESSION_ALREADY_EXISTS, `session ${id} already exists`, {
      sessionId: id,
    })
  }
}
