import { SessionError, SessionErrorCode, SessionForkError } from '../errors.js'
import { liveForkSource } from '../fork/fork.js'
import type { ForkSpawner } from '../fork/store-forks.js'
import type { SessionHeader } from '../header.js'
import type { SessionId } from '../ids.js'
import type { JsonObject, SessionEvent } from '../log/events.js'
import { storableEventData } from '../log/frozen.js'
import { LogState, turnsBefore } from '../log/log-state.js'
import { assertEventShape } from '../log/validate-event.js'
import { Session } from '../session.js'
import { assertChildId } from '../store/new-session.js'
import type { SessionPen } from '../store/pens.js'
import { ownCost } from '../usage.js'
import { assertRewindable, planRewind } from './rewind-plan.js'
import { WhileWaiting } from './while-waiting.js'

/**
 * The store's rewind (issue 24): session `X` goes back to the closed boundary `b`, in place (same
 * id), and nothing is lost. In this order:
 * 1. checks: `X` is live and writable, no turn is open, and the rewind's rules allow `b`
 *    (`rewind-plan.ts`: a closed boundary, not inside an inherited fork seed);
 * 2. `X` is held: appends to it throw `SESSION_READ_ONLY` until the rewind ends;
 * 3. the branch `B`: a new session holding all of `X`'s events, then `session/archived {true}`
 *    (and a `session/title` when `X` has a title event after `b`), header `{parentSession: X,
 *    seedLength: b, title: "<title> (before rewind)"}`: `B` is what `X` was, and reads as a
 *    child of the rewound `X` that parted at `b`. It is made durable (its file exists whole or not
 *    at all) and let go;
 * 4. `session/truncate (X, b)`: the backend cuts `X`'s file back to its first `b` events, durably;
 * 5. `X` is replaced by a new live object with the same header and the events `1..b`, then the
 *    rewind's marker (`rewind:marker` at `b + 1`: the next rewind generation, the branch, what the
 *    session had spent) is appended (the old object becomes stale: `SESSION_NOT_LIVE`).
 * A failure in 3 leaves `X` as it was (held no more); one in 4 makes `X` read-only (load it again:
 * its file holds the old or the new log, whole) and `B` stays, holding everything.
 *
 * A backend that answers `session/rewind` does 3 and 4 (and the marker) at once, at the cost of the
 * kept prefix (the JSONL one: the old file becomes the branch by a link, the session's file is
 * written anew from the kept bytes and the marker); then `X` is replaced by `1..b` and the marker.
 */
export interface RewindResult {
  /** The rewound session: the live object that replaced the one rewound. */
  readonly session: Session
  /** The archived branch holding the history as it was. */
  readonly branch: { readonly sessionId: SessionId; readonly title: string }
  /** The closed boundary the session was rewound to. */
  readonly boundary: number
  /** Events removed from the session (kept in the branch). */
  readonly removed: number
}

export interface RewindOptions {
  /** The branch's id; default: one the store mints. */
  readonly branchId?: SessionId
}

/** A rewind's branch, not made: its header and the events that follow the rewound session's in it. */
export interface BranchPlan {
  readonly header: SessionHeader
  readonly tail: readonly SessionEvent[]
}

/** What a rewind needs of the store besides what a fork needs. */
export interface RewindStore extends ForkSpawner {
  /** Makes `session` durable (header, seed, appends), else lets it go and rejects. */
  untilDurable(session: Session): Promise<Session>
  /** Lets go of a live session as `close` does. */
  close(session: Session): Promise<void>
  /** Asks the backends to cut the session's stored log back to its first `count` events, durably. */
  truncate(session: Session, count: number): Promise<void>
  /**
   * Asks a backend to do the rewind's writes at once (`session/rewind`): true when one did, false
   * when none answers (the branch is then created and the session truncated, one after the other).
   */
  rewindStored(session: Session, branch: BranchPlan, marker: SessionEvent): Promise<boolean>
  /** Puts `next` in place of the live `previous` (same id) and makes `previous` stale. */
  replace(previous: Session, next: Session): void
  /** The right to write the session's file (see `SessionStore.takePen`); kept across `replace`. */
  takePen(session: Session): SessionPen
}

declare module 'cordis' {
  interface Events {
    /**
     * Cut the stored log of `session` (live, held: nothing is appended meanwhile) back to its first
     * `count` events, durably; rejects when that failed (the session is then read-only).
     */
    'session/truncate'(session: Session, count: number): Promise<void>
    /**
     * Rewind the stored `session` (live, held) in one go, durably: the branch (`branch.header`,
     * `session`'s events, then `branch.tail`) is stored, and `session`'s stored
     * log becomes its first `marker.seq - 1` events and `marker`. Resolves true when this backend
     * did it; a backend that cannot leaves it to `session/created` and `session/truncate` (no
     * answer). Rejects when it failed, leaving the old stored log or the new one (with its branch).
     */
    'session/rewind'(session: Session, branch: BranchPlan, marker: SessionEvent): Promise<true | undefined>
  }
}

/** Events of a branch that are its source's (copied by bytes, not serialized again). */
const inheritedCounts = new WeakMap<Session, number>()

/**
 * How many of `session`'s first events were created as a byte copy of its parent's: a fork
 * child's `seedLength`, a rewind branch's whole pre-rewind log (which is longer than its
 * `seedLength`, the seq where it parts from the rewound session).
 */
export function inheritedEventCount(session: Session): number {
  return inheritedCounts.get(session) ?? session.header.seedLength ?? 0
}

export async function rewindLive(
  store: RewindStore,
  source: Session | SessionId,
  boundary: number,
  options: RewindOptions = {},
): Promise<RewindResult> {
  const session = liveForkSource(source, (id) => store.live.get(id))
  // The pen first: what other processes appended is taken in, and none appends while the file is cut.
  const pen = store.takePen(session)
  try {
    return await rewindHeld(store, session, boundary, options)
  } finally {
    await pen.release()
  }
}

async function rewindHeld(
  store: RewindStore,
  session: Session,
  boundary: number,
  options: RewindOptions,
): Promise<RewindResult> {
  if (session.writeFailure) throw session.writeFailure
  if (session.openTurn !== undefined) {
    throw new SessionForkError(
      SessionErrorCode.OPEN_TURN,
      `turn ${session.openTurn} of session ${session.id} is running: cancel it before rewinding`,
      { sessionId: session.id, openTurn: session.openTurn },
    )
  }
  const plan = planRewind(session, boundary)
  assertRewindable(plan)
  const kept = plan.boundary
  const branchId = options.branchId ?? store.mintId()
  assertChildId(branchId, (id) => store.taken(id))
  const title = plan.branchTitle
  session.hold(
    new SessionError(SessionErrorCode.SESSION_READ_ONLY, `session ${session.id} is being rewound`, {
      sessionId: session.id,
    }),
  )
  let rewound: WhileWaiting<Session> | undefined
  try {
    const branchMade = branchPlan(session, { kept, branchId, title }, store)
    const marker = rewindMarker(session, kept, branchId, store.now())
    // Built while the backend waits on the disk (its syncs), not after: the log is held, so events
    // 1..kept and the marker are what the rewound session holds if the backend rewinds at once.
    rewound = new WhileWaiting(() => rewoundSession(session, kept, marker, store))
    const atOnce = await store.rewindStored(session, branchMade, marker)
    if (!atOnce) {
      rewound.cancel()
      const branch = store.admit(branchOf(session, branchMade, store))
      await store.untilDurable(branch)
      await store.close(branch)
      await store.truncate(session, kept)
    }
    const next = atOnce ? rewound.result() : rewoundSession(session, kept, undefined, store)
    store.replace(session, next)
    // Without a backend that wrote it with the kept prefix, the marker is appended (and made durable).
    if (!atOnce) next.append({ type: REWIND_MARKER, data: marker.data as JsonObject })
    return { session: next, branch: { sessionId: branchId, title }, boundary: kept, removed: plan.removed }
  } finally {
    rewound?.cancel()
    session.hold(undefined)
  }
}

/**
 * The marker a rewind of `session` to `kept` writes at `kept + 1`: the next rewind generation (one
 * past the latest the session reached: its log holds the last rewind's marker), the branch, and
 * what the session had spent (its own cost: a rewind never lowers it).
 */
function rewindMarker(session: Session, kept: number, branchId: SessionId, time: string): SessionEvent {
  const cost = ownCost(session)
  const input = {
    generation: session.generationAt(session.lastSeq + 1) + 1,
    branch: branchId,
    boundary: kept,
    ...(cost !== undefined && { cost }),
  }
  const data = storableEventData(REWIND_MARKER, input)
  assertEventShape(REWIND_MARKER, data)
  return Object.freeze({ seq: kept + 1, type: REWIND_MARKER, time, data }) as SessionEvent
}

/** The type of a rewind's marker event. */
export const REWIND_MARKER = 'rewind:marker'

/**
 * The branch of `session` parting at `kept`, not live yet: every event of `session` (shared, as a
 * fork child shares them), then `session/archived {true}`, and the branch's title as an event when
 * a title event after `kept` would otherwise stand for it.
 */
function branchOf(session: Session, plan: BranchPlan, store: RewindStore): Session {
  const log = session.events()
  const state = new LogState(turnsBefore(session.turnSpans(), log.length), log.length)
  for (const event of plan.tail) {
    state.check(event)
    log.push(event)
    state.apply(event)
  }
  const branch = new Session(plan.header, log, state, store.host)
  inheritedCounts.set(branch, session.length)
  return branch
}

/**
 * The branch of `session` parting at `kept`, without its log: its header, and the events that
 * follow `session`'s in it (its title as an event when a title event after `kept` would otherwise
 * stand for it, then `session/archived {true}`).
 */
function branchPlan(
  session: Session,
  parting: { readonly kept: number; readonly branchId: SessionId; readonly title: string },
  store: RewindStore,
): BranchPlan {
  const { kept, branchId, title } = parting
  const header: SessionHeader = {
    id: branchId,
    createdAt: store.now(),
    cwd: session.cwd,
    parentSession: session.id,
    seedLength: kept,
    title,
  }
  const inputs: { type: 'session/title' | 'session/archived'; data: unknown }[] = []
  // The last own title event is after `kept` when any is (the seed, before `kept`, has none of its own).
  if ((session.ownTitleSeq ?? 0) > kept) {
    inputs.push({ type: 'session/title', data: { title } })
  }
  inputs.push({ type: 'session/archived', data: { archived: true } })
  const tail = inputs.map((input, i) => {
    const data = storableEventData(input.type, input.data)
    assertEventShape(input.type, data)
    return Object.freeze({
      seq: session.lastSeq + 1 + i,
      type: input.type,
      time: store.now(),
      data,
    }) as SessionEvent
  })
  return { header, tail }
}

/** `session`'s first `kept` events, then `marker` when the backend wrote it with them, as a new live session. */
function rewoundSession(
  session: Session,
  kept: number,
  marker: SessionEvent | undefined,
  store: RewindStore,
): Session {
  const state = new LogState(turnsBefore(session.turnSpans(), kept), kept)
  const events = session.eventsThrough(kept)
  if (marker) {
    state.check(marker)
    state.apply(marker)
    events.push(marker)
  }
  return new Session(session.header, events, state, store.host)
}
