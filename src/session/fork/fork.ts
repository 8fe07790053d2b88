import { SessionErrorCode, SessionForkError } from '../errors.js'
import type { SessionId } from '../ids.js'
import { boundaryStatus } from '../log/log-state.js'
import { Session } from '../session.js'

/**
 * Resolves and checks a fork boundary against a live source, by the Agent Note's rules:
 * - `boundary` is the inclusive source seq to copy through; omitted, it is the last event;
 * - it must be an integer in `[0, lastSeq]`, else `INVALID_BOUNDARY`;
 * - `0` (and an empty source) gives an empty prefix, always forkable;
 * - the latest `turn/start`/`turn/end` at or before it must not be an unmatched `turn/start`,
 *   else `OPEN_TURN` with `boundary` and `lastSafeBoundary`. Forks never clip silently.
 * Returns the boundary to copy through.
 */
export function resolveForkBoundary(source: Session, boundary: number | undefined): number {
  const lastSeq = source.lastSeq
  const asked = boundary === undefined ? lastSeq : boundary
  if (typeof asked !== 'number' || !Number.isInteger(asked) || asked < 0 || asked > lastSeq) {
    throw new SessionForkError(
      SessionErrorCode.INVALID_BOUNDARY,
      `boundary ${describeBoundary(boundary)} is not an integer seq in [0, ${lastSeq}] of session ${source.id}`,
      { sessionId: source.id, boundary: echoable(boundary), lastSeq },
    )
  }
  if (asked === 0) return 0
  const { open, lastSafeBoundary } = boundaryStatus(source.turnSpans(), asked)
  if (open) {
    throw new SessionForkError(
      SessionErrorCode.OPEN_TURN,
      `seq ${asked} of session ${source.id} is inside turn ${open.turn} (opened at seq ${open.start}), which is not closed there; the last boundary at or before it that can fork is ${lastSafeBoundary}`,
      { sessionId: source.id, boundary: asked, openTurn: open.turn, turnStart: open.start, lastSafeBoundary },
    )
  }
  return asked
}

/**
 * The live session a fork reads from: `SESSION_NOT_FOUND` for an id that is not live (or a value
 * that is neither a Session nor an id), `SESSION_NOT_LIVE` for a Session object that was closed or
 * replaced by another session with its id.
 */
export function liveForkSource(
  source: Session | SessionId,
  live: (id: SessionId) => Session | undefined,
): Session {
  if (typeof source === 'string') {
    const session = live(source)
    if (!session) {
      throw new SessionForkError(SessionErrorCode.SESSION_NOT_FOUND, `no live session ${source}`, {
        sessionId: source,
      })
    }
    return session
  }
  if (!(source instanceof Session)) {
    throw new SessionForkError(
      SessionErrorCode.SESSION_NOT_FOUND,
      'fork source must be a Session or a session id',
      {
        sessionId: null,
      },
    )
  }
  if (!source.live || live(source.id) !== source) {
    throw new SessionForkError(
      SessionErrorCode.SESSION_NOT_LIVE,
      `session object ${source.id} is stale: it was closed or replaced`,
      { sessionId: source.id },
    )
  }
  return source
}

/** A refused boundary for a message: short whatever the client sent (a long string, a deep array). */
function describeBoundary(boundary: unknown): string {
  if (typeof boundary === 'string')
    return JSON.stringify(boundary.length > 40 ? `${boundary.slice(0, 40)}…` : boundary)
  if (Array.isArray(boundary)) return 'an array'
  if (typeof boundary === 'object' && boundary !== null) return 'an object'
  return String(boundary)
}

/** The boundary as error data: primitives as sent (a string when short), else null. */
function echoable(boundary: unknown): unknown {
  if (typeof boundary === 'string') return boundary.length > 40 ? null : boundary
  return typeof boundary === 'object' || boundary === undefined ? null : boundary
}
