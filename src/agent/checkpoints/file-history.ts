import type { SessionEvent, SessionHeader } from '../../session/index.js'
import { extensionData } from '../../session/index.js'
import { checkpointOf, type FileCheckpoint } from './checkpoint-event.js'

/** What the tools of a stretch of a session's log did to files. */
export interface FileHistory {
  /** Per path (in order of first change): the first change in the stretch and the last one. */
  readonly files: ReadonlyMap<string, { readonly first: FileCheckpoint; readonly last: FileCheckpoint }>
  /** run_command or an MCP tool was called in the stretch (its effects on files are unknown). */
  readonly commandsRan: boolean
}

/** Reads a subagent session's events (from `from`), as `ctx.sessions.visitEvents` does. */
export type VisitSession = (
  id: string,
  from: number,
  visit: (event: SessionEvent, header: SessionHeader) => boolean,
) => Promise<unknown>

/** How deep subagents of subagents are followed. */
const MAX_SUBAGENT_DEPTH = 8

/**
 * The file history of `events` (a stretch of one session's log, in seq order). The changes a
 * subagent spawned in the stretch made in its own session count too, in the place of the call
 * that spawned it (its log is read through `visit`; one that is gone counts as having run commands).
 */
export async function fileHistory(
  events: readonly SessionEvent[],
  visit: VisitSession | undefined,
  depth = 0,
): Promise<FileHistory> {
  const files = new Map<string, { first: FileCheckpoint; last: FileCheckpoint }>()
  let commandsRan = false
  const note = (change: FileCheckpoint) => {
    const seen = files.get(change.path)
    if (seen) seen.last = change
    else files.set(change.path, { first: change, last: change })
  }
  for (const event of events) {
    if (event.type === 'tool/call' && ranCommand(event.data.name)) commandsRan = true
    const change = checkpointOf(event)
    if (change) note(change)
    const spawned = extensionData(event, 'subagent:spawned')
    if (spawned === undefined) continue
    const child = visit && depth < MAX_SUBAGENT_DEPTH ? await ownEvents(spawned.sessionId, visit) : undefined
    if (child === undefined) {
      commandsRan = true
      continue
    }
    const inner = await fileHistory(child, visit, depth + 1)
    commandsRan ||= inner.commandsRan
    for (const { first, last } of inner.files.values()) {
      note(first)
      if (last !== first) note(last)
    }
  }
  return { files, commandsRan }
}

/** Tools whose effects on files are not recorded: commands, and MCP servers' tools. */
function ranCommand(name: string): boolean {
  return name === 'run_command' || name.startsWith('mcp__')
}

/** A subagent session's own events (past the seed it inherited), or undefined when it is gone. */
async function ownEvents(id: string, visit: VisitSession): Promise<SessionEvent[] | undefined> {
  const own: SessionEvent[] = []
  try {
    await visit(id, 1, (event, header) => {
      if (event.seq > (header.seedLength ?? 0)) own.push(event)
      return true
    })
  } catch {
    return undefined
  }
  return own
}
