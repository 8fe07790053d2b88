import type { ListOptions, SessionPage, SessionSummary } from './header.js'

export const DEFAULT_PAGE_SIZE = 50
export const MAX_PAGE_SIZE = 1000

/** Newest first: by creation time, then by id, both descending. Ids are unique, so this is total. */
export function compareNewestFirst(a: SessionSummary, b: SessionSummary): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1
  return a.sessionId < b.sessionId ? 1 : a.sessionId > b.sessionId ? -1 : 0
}

interface CursorPosition {
  readonly createdAt: string
  readonly sessionId: string
}

export function encodeCursor(last: SessionSummary): string {
  return Buffer.from(JSON.stringify([last.createdAt, last.sessionId])).toString('base64url')
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
  return { createdAt: parsed[0], sessionId: parsed[1] }
}

export function pageSize(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE_SIZE
  if (!Number.isInteger(limit) || limit < 1) throw new TypeError('limit must be a positive integer')
  return Math.min(limit, MAX_PAGE_SIZE)
}

/** True when `summary` comes strictly after the cursor position in newest-first order. */
export function isAfterCursor(summary: SessionSummary, position: CursorPosition): boolean {
  return compareNewestFirst(summary, { ...summary, ...position }) > 0
}

/**
 * One page of `all` (in any order, or already newest first when `newestFirst`): filtered by cwd,
 * sorted newest first, starting after the cursor. A cursor stays valid while sessions are added or
 * removed.
 */
export function paginate(
  all: Iterable<SessionSummary>,
  options: ListOptions,
  newestFirst = false,
): SessionPage {
  const limit = pageSize(options.limit)
  const position = options.cursor !== undefined ? decodeCursor(options.cursor) : undefined
  const matching: SessionSummary[] = []
  for (const summary of all) {
    if (options.cwd !== undefined && summary.cwd !== options.cwd) continue
    if (position && !isAfterCursor(summary, position)) continue
    matching.push(summary)
  }
  if (!newestFirst) matching.sort(compareNewestFirst)
  const sessions = matching.slice(0, limit)
  const last = sessions[sessions.length - 1]
  return matching.length > limit && last ? { sessions, nextCursor: encodeCursor(last) } : { sessions }
}
