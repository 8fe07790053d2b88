import { SessionErrorCode, SessionForkError } from '../errors.js'
import { resolveForkBoundary } from '../fork/fork.js'
import type { SessionId } from '../ids.js'
import type { Session } from '../session.js'

/**
 * The rules of a rewind (issue 24), once: what going back to a closed boundary of a session keeps,
 * what it moves to the archived branch, and whether it is allowed. The store's rewind executes a
 * plan (`store-rewind.ts`); a dry run reports one; each protocol surface words its refusal.
 *
 * Rules:
 * - the boundary is a closed boundary of the session, by the fork rules (`resolveForkBoundary`:
 *   `INVALID_BOUNDARY`, `OPEN_TURN`);
 * - it is not inside the fork seed the session inherited (a child's header says its first
 *   `seedLength` events are its parent's): that part is the parent's history, to fork there;
 * - the session keeps its first `boundary` events; every event, the removed ones too, goes to the
 *   archived branch, titled {@link branchTitle};
 * - the files go back to how they were when the last turn kept ended (`filesBoundary`).
 */
export interface RewindPlan {
  readonly sessionId: SessionId
  /** The closed boundary kept: the session keeps its events `1..boundary`. */
  readonly boundary: number
  /** The seq of the last `turn/end` at or before {@link boundary}, or 0: a file restore's boundary. */
  readonly filesBoundary: number
  /** Events removed from the session (kept in the branch). */
  readonly removed: number
  /** The user and assistant messages (with text) removed. */
  readonly messagesDropped: number
  /** The archived branch's title. */
  readonly branchTitle: string
  /** Set when the boundary falls inside the inherited fork seed: the rewind is refused. */
  readonly intoSeed?: SeedRefusal
}

/** A boundary inside the fork seed: the session's first `seedLength` events are `parentSession`'s. */
export interface SeedRefusal {
  readonly parentSession: SessionId | undefined
  readonly seedLength: number
}

/**
 * The plan of rewinding `session` to `boundary`. Throws the fork rules' `INVALID_BOUNDARY` or
 * `OPEN_TURN` for a boundary that is not closed; a boundary inside the fork seed is planned with
 * {@link RewindPlan.intoSeed} set (a dry run still says what it would drop), which
 * {@link assertRewindable} refuses.
 */
export function planRewind(session: Session, boundary: number): RewindPlan {
  const kept = resolveForkBoundary(session, boundary)
  const seedLength = session.header.seedLength ?? 0
  let messagesDropped: number | undefined
  return {
    sessionId: session.id,
    boundary: kept,
    filesBoundary: lastTurnEnd(session, kept),
    removed: session.length - kept,
    // Counted when asked (a dry run, a reply): the rewind itself does not need it, and it reads
    // every removed event.
    get messagesDropped() {
      messagesDropped ??= messagesAfter(session, kept)
      return messagesDropped
    },
    branchTitle: branchTitle(session),
    ...(kept < seedLength && { intoSeed: { parentSession: session.header.parentSession, seedLength } }),
  }
}

/** Throws the store's `INVALID_BOUNDARY` for a plan that rewinds into the fork seed. */
export function assertRewindable(plan: RewindPlan): void {
  const seed = plan.intoSeed
  if (seed === undefined) return
  throw new SessionForkError(
    SessionErrorCode.INVALID_BOUNDARY,
    `session ${plan.sessionId} was forked from ${seed.parentSession} with its first ${seed.seedLength} events: it cannot be rewound to seq ${plan.boundary}, before them (fork ${seed.parentSession} there instead)`,
    { sessionId: plan.sessionId, boundary: plan.boundary, seedLength: seed.seedLength },
  )
}

/** The branch's title: the session's as it was, marked. */
export function branchTitle(session: Session): string {
  return `${session.title ?? session.id} (before rewind)`
}

/** The last closed turn boundary at or before `boundary`: the seq of the last `turn/end` there, or 0. */
function lastTurnEnd(session: Session, boundary: number): number {
  let end = 0
  for (const span of session.turnSpans()) {
    if (span.end !== undefined && span.end <= boundary) end = span.end
    if (span.start > boundary) break
  }
  return end
}

/** The user and assistant messages (with text) after `boundary`. */
function messagesAfter(session: Session, boundary: number): number {
  let count = 0
  for (let seq = boundary + 1; seq <= session.lastSeq; seq++) {
    const event = session.at(seq)
    if (event === undefined) continue
    if (event.type === 'user/message') count++
    else if (event.type === 'assistant/message' && event.data.content !== '') count++
  }
  return count
}
