import type { SessionSummary } from '../session/index.js'

/**
 * Renders sessions as a lineage forest: each fork under its parent (oldest child first), roots
 * most recent activity first. A session whose parent is not in the list is shown as a root with a note.
 */
export function renderLineage(sessions: readonly SessionSummary[]): string[] {
  const byId = new Map(sessions.map((s) => [s.sessionId, s]))
  const children = new Map<string, SessionSummary[]>()
  const roots: SessionSummary[] = []
  for (const session of sessions) {
    const parent = session.parentSession
    if (parent !== undefined && byId.has(parent)) {
      const list = children.get(parent) ?? []
      list.push(session)
      children.set(parent, list)
    } else {
      roots.push(session)
    }
  }
  const label = (s: SessionSummary) => {
    const parts = [s.sessionId]
    if (s.title) parts.push(JSON.stringify(s.title))
    if (s.seedLength !== undefined) parts.push(`forked at seq ${s.seedLength}`)
    if (s.subagent !== undefined)
      parts.push(`subagent of call ${s.subagent.callId} (turn ${s.subagent.turn})`)
    if (s.parentSession !== undefined && !byId.has(s.parentSession))
      parts.push(`(parent ${s.parentSession} is gone)`)
    parts.push(`updated ${s.updatedAt}`)
    return parts.join('  ')
  }
  const lines: string[] = []
  const walk = (session: SessionSummary, prefix: string, last: boolean, root: boolean) => {
    lines.push(root ? label(session) : `${prefix}${last ? '└─ ' : '├─ '}${label(session)}`)
    const kids = (children.get(session.sessionId) ?? [])
      .slice()
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    const nextPrefix = root ? '' : `${prefix}${last ? '   ' : '│  '}`
    for (const [i, kid] of kids.entries()) walk(kid, nextPrefix, i === kids.length - 1, false)
  }
  for (const root of roots) walk(root, '', true, true)
  return lines
}
