import type { JsonValue, Session, SessionEvent } from '../../session/index.js'
import type { Tool } from '../tools/tool.js'
import type { LivePermissions, SessionMode } from './permission-types.js'

export type { LivePermissions, PermissionAnswer, SessionMode } from './permission-types.js'

/** A configured mode id as a {@link SessionMode}; anything unknown is `ask`. */
export function sessionMode(id: string): SessionMode {
  return id === 'accept-edits' || id === 'read-only' ? id : 'ask'
}

const STRICTNESS: Readonly<Record<SessionMode, number>> = { 'accept-edits': 0, ask: 1, 'read-only': 2 }

/** The stricter of two modes (`read-only` over `ask` over `accept-edits`). */
export function stricterMode(a: SessionMode, b: SessionMode): SessionMode {
  return STRICTNESS[b] > STRICTNESS[a] ? b : a
}

/**
 * `own` capped by `ceiling` (a subagent's parent's live permissions): the stricter mode of the two
 * and {@link strictestAnswers} of both, read live at every call. Without a ceiling, `own`.
 */
export function cappedPermissions(
  own: LivePermissions,
  ceiling: LivePermissions | undefined,
): LivePermissions {
  if (!ceiling) return own
  return {
    mode: () => stricterMode(own.mode(), ceiling.mode()),
    standing: () => strictestAnswers(own.standing(), ceiling.standing()),
  }
}

/**
 * Two sets of standing answers as one that is never looser than either: a scope rejected in either
 * is rejected; otherwise one allowed in either is allowed.
 */
export function strictestAnswers(
  own: ReadonlyMap<string, boolean>,
  other: ReadonlyMap<string, boolean>,
): ReadonlyMap<string, boolean> {
  if (other.size === 0) return own
  const merged = new Map(own)
  for (const [scope, allow] of other) merged.set(scope, allow && merged.get(scope) !== false)
  return merged
}

/** What the policy says about one call before anyone is asked. */
export type PermissionDecision =
  | { readonly verdict: 'allow' }
  | { readonly verdict: 'ask' }
  | { readonly verdict: 'refuse'; readonly reason: string }

/**
 * The log event that records an "always" answer: from then on (and in a loaded session or a fork
 * child that inherits the event) calls in `scope` are allowed (`allow: true`) or refused without
 * asking.
 */
export const PERMISSION_ALWAYS_EVENT = 'permission:always'

export interface PermissionAlwaysData {
  readonly [key: string]: JsonValue
  readonly tool: string
  readonly scope: string
  readonly allow: boolean
}

/** What an "always" answer for this call covers. */
export function permissionScope(tool: Tool, input: JsonValue): string {
  return tool.permissionScope?.(input) ?? tool.spec.name
}

/** Whether `mode` offers `tool` to the model at all (`read-only` hides anything that changes things). */
export function offeredIn(mode: SessionMode, tool: Tool): boolean {
  return mode !== 'read-only' || tool.effect === 'read'
}

/**
 * The standing "always" answers of a log (pure): scope -> allowed. A later answer for the same
 * scope replaces an earlier one.
 */
export function standingAnswers(events: readonly SessionEvent[]): Map<string, boolean> {
  const answers = new Map<string, boolean>()
  for (const event of events) foldAnswer(answers, event)
  return answers
}

function foldAnswer(answers: Map<string, boolean>, event: SessionEvent): void {
  if (event.type !== PERMISSION_ALWAYS_EVENT) return
  const data = event.data as Partial<PermissionAlwaysData>
  if (typeof data.scope === 'string' && typeof data.allow === 'boolean') answers.set(data.scope, data.allow)
}

interface FoldedAnswers {
  /** The seq of the last event folded in. */
  through: number
  readonly answers: Map<string, boolean>
}

const foldedAnswers = new WeakMap<Session, FoldedAnswers>()

/**
 * {@link standingAnswers} of `session`'s log as it is now, kept per session and brought up to date
 * by folding in only the events appended since the last call (a log only grows): a tool call of a
 * long session costs its new events, not the whole log. The map is live; read it, do not keep it.
 */
export function standingAnswersOf(session: Session): ReadonlyMap<string, boolean> {
  let folded = foldedAnswers.get(session)
  if (!folded) {
    folded = { through: 0, answers: new Map() }
    foldedAnswers.set(session, folded)
  }
  if (folded.through < session.lastSeq) {
    for (const event of session.eventsAfter(folded.through)) foldAnswer(folded.answers, event)
    folded.through = session.lastSeq
  }
  return folded.answers
}

/**
 * The policy: tools that change nothing run; `read-only` refuses the rest; a standing "always"
 * answer decides without asking; `accept-edits` lets file edits through; everything else asks.
 */
export function decidePermission(
  tool: Tool,
  scope: string,
  mode: SessionMode,
  standing: ReadonlyMap<string, boolean>,
): PermissionDecision {
  if (tool.effect === 'read') return { verdict: 'allow' }
  if (mode === 'read-only') {
    return { verdict: 'refuse', reason: `the session is read-only, and ${tool.spec.name} changes things` }
  }
  const answer = standing.get(scope)
  if (answer === false) return { verdict: 'refuse', reason: 'the user chose to always reject this' }
  if (answer === true) return { verdict: 'allow' }
  if (mode === 'accept-edits' && tool.effect === 'edit') return { verdict: 'allow' }
  return { verdict: 'ask' }
}
