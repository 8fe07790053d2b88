import type { Session, SessionEvent, SessionHeader, UpdateProjector } from '../../../session/index.js'
import type { CallContext } from '../../call-context.js'
import { ProtocolError } from '../../errors.js'
import { assertSameCwd } from '../../requests/session-access.js'
import { replayOutput, replayProjector } from './replay-output.js'
import { type ShownHead, ShownHeadCheck } from './shown-head.js'

/** What {@link replayAndAttach} replays, for which method (named in its errors). */
export interface ReplayRequest {
  readonly method: string
  readonly sessionId: string
  readonly cwd: string
  readonly seen: number
  /** What an early load of this request sent already (see shown-head.ts). */
  readonly shown?: ShownHead
}

/**
 * Replays session `sessionId` (which must be in `cwd`) to this connection, the events after
 * `seen` only, then attaches the connection (see `SessionAudience`): whatever any client makes the
 * session do reaches it live from then on. A stored session is replayed while its file is read:
 * each event is sent once it passed every check, and the read waits while the client is slow to
 * take the updates. `seen` past the session's last event is -32602 (the client's view is not of
 * this log), before anything is sent. With `shown`, the head an early load sent is not sent again
 * (and must be what this replay reads: -32015 otherwise).
 */
export async function replayAndAttach(call: CallContext, replay: ReplayRequest): Promise<Session> {
  const { method, sessionId, cwd, seen, shown } = replay
  let projector: UpdateProjector | undefined
  let replayed = 0
  let lastSent: Promise<void> | undefined
  // A client with the subagents capability sees each delegation's child too (subagent-replay.ts).
  const { turnEnds, subagents } = replayOutput(call, shown?.sentThrough)
  const head = shown && new ShownHeadCheck(shown, method, sessionId)
  const send = (event: SessionEvent, header: SessionHeader) => {
    projector ??= replayProjector(call, header)
    head?.event(event, header)
    // A stored line is lent during the read's call only: its long strings are copied now or never.
    const updates = projector.updatesFor(event)
    if (event.seq > seen) lastSent = turnEnds.push(event, updates) ?? lastSent
    else turnEnds.passed(event)
    replayed = event.seq
  }
  // A file another process cut (a rewind) or replaced is read anew: the client loads it to see it.
  call.sessions.letGoIfChanged(sessionId)
  const session = await call.sessions
    .open(sessionId, (event, header) => {
      // Checked before the first update leaves: nothing of another directory's session is sent.
      if (replayed === 0 && header.cwd !== cwd) assertSameCwd({ id: header.id, cwd: header.cwd }, cwd, method)
      send(event, header)
      // The read waits (once per chunk it reads) until the output took what the chunk made, so no
      // more than about one chunk's updates wait in memory for a slow pipe.
      return lastSent
    })
    .finally(() => subagents?.drained())
  assertSameCwd(session, cwd, method)
  if (seen > session.lastSeq)
    throw ProtocolError.invalidParams(
      `${method}: the last event seen (${seen}) is past the session's last event (${session.lastSeq}): load it whole`,
      { sessionId, lastSeq: session.lastSeq },
    )
  for (const event of session.eventsAfter(replayed)) send(event, session.header)
  head?.finish(session.lastSeq)
  // The replay showed everything this process caught up on, too.
  call.sessions.takeCaughtUp(session)
  // From here on, what any client appends reaches this one live (before the answer, too).
  call.attach(session, {
    projector: projector ?? replayProjector(call, session.header),
    turnEnds,
    notify: (update) => call.notify(update),
  })
  turnEnds.flush()
  await subagents?.drained()
  return session
}
