import type { ListOptions, SessionPage, SessionSummary } from '../../header.js'

export const DEFAULT_PAGE_SIZE = 50
export const MAX_PAGE_SIZE = 1000

/**
 * Most recent activity first (ACP's `updatedAt`), then by id, both descending. Ids are unique, so
 * this is total.
 */
export function compareByActivity(a: SessionSummary, b: SessionSummary): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1
  return a.sessionId < b.sessionId ? 1 : a.sessionId > b.sessionId ? -1 : 0
}

interface CursorPosition {
  readonly updatedAt: string
  readonly sessionId: string
}

export function encodeCursor(last: SessionSummary): string {
  return Buffer.from(JSON.stringify([last.updatedAt, last.sessionId])).toString('base64url')
}

/** Reads a cursor made by {@link encodeCursor}; throws a TypeError for anything else. */
export function decodeCursor(cursor: string): CursorPosition {
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    parsed = undefined
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 2 ||
    typeof parsed[0] !== 'string' ||
    typeof parsed[1] !== 'string'
  ) {
    throw new TypeError('invalid cursor: pass back exactly the nextCursor of a previous page')
  }
  return { updatedAt: parsed[0], sessionId: parsed[1] }
}

export function pageSize(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE_SIZE
  if (!Number.isInteger(limit) || limit < 1) throw new TypeError('limit must be a positive integer')
  return Math.min(limit, MAX_PAGE_SIZE)
}

/** True when `summary` comes strictly after the cursor position in activity order. */
export function isAfterCursor(summary: SessionSummary, position: CursorPosition): boolean {
  return compareByActivity(summary, { ...summary, ...position }) > 0
}

/**
 * `stored` (in activity order) with each session that `live` knows replaced by its current
 * summary, still in activity order. Linear in `stored`; only the live ones are sorted again.
 */
export function withLiveSummaries(
  stored: readonly SessionSummary[],
  live: (id: SessionSummary['sessionId']) => SessionSummary | undefined,
): readonly SessionSummary[] {
  const current: SessionSummary[] = []
  const rest: SessionSummary[] = []
  for (const summary of stored) {
    const now = live(summary.sessionId)
    if (now) current.push(now)
    else rest.push(summary)
  }
  if (current.length === 0) return stored
  current.sort(compareByActivity)
  const merged: SessionSummary[] = []
  let i = 0
  let j = 0
  while (i < rest.length || j < current.length) {
    const a = rest[i]
    const b = current[j]
    if (b === undefined || (a !== undefined && compareByActivity(a, b) <= 0)) {
      merged.push(a as SessionSummary)
      i++
    } else {
      merged.push(b)
      j++
    }
  }
  return merged
}

/**
 * One page of `all` (in any order, or already in activity order when `ordered`): filtered by cwd
 * and archive state (before the page is cut), most recent activity first, starting after the cursor. A cursor stays valid while sessions are
 * added or removed; a session whose activity moves it past the cursor shows on an earlier page.
 */
export function paginate(all: Iterable<SessionSummary>, options: ListOptions, ordered = false): SessionPage {
  const limit = pageSize(options.limit)
  const position = options.cursor !== undefined ? decodeCursor(options.cursor) : undefined
  const matching: SessionSummary[] = []
  const archived = options.archived ?? 'exclude'
  for (const summary of all) {
    if (options.cwd !== undefined && summary.cwd !== options.cwd) continue
    if (archived === 'exclude' ? summary.archived : archived === 'only' && !summary.archived) continue
    if (position && !isAfterCursor(summary, position)) continue
    matching.push(summary)
    // In activity order, the page and whether one follows are known once one more matched.
    if (ordered && matching.length > limit) break
  }
  if (!ordered) matching.sort(compareByActivity)
  const sessions = matching.slice(0, limit)
  const last = sessions[sessions.length - 1]
  return matching.length > limit && last ? { sessions, nextCursor: encodeCursor(last) } : { sessions }
}
