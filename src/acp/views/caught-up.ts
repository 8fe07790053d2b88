import type { Session, SessionEvent, UpdateProjector } from '../../session/index.js'
import type { CallContext } from '../call-context.js'
import { replayOutput, replayProjector } from './replay/replay-output.js'

/**
 * Sends this client what it missed of `session`: the events this process caught up on (other
 * processes appended them: the user prompted the session in another window), each as the
 * `session/update`s a replay shows for it (same projection, `_meta.dsh.seq`, message ids and
 * `_meta.dsh.turnEnd`), in log order. Resolves when the output took them. Nothing when there
 * were none.
 */
export async function sendCaughtUp(call: CallContext, session: Session): Promise<void> {
  const ranges = call.sessions.takeCaughtUp(session)
  if (ranges.length === 0) return
  const projector = replayProjector(call, session.header)
  const { turnEnds, subagents } = replayOutput(call)
  let last: Promise<void> | undefined
  let fed = 0
  let sawUserMessage = false
  for (const { from, to } of ranges) {
    sawUserMessage = primeProjector(projector, session, { from: fed + 1, to: from - 1 }, sawUserMessage)
    for (let seq = from; seq <= to; seq++) {
      const event = session.at(seq) as SessionEvent
      if (event.type === 'user/message') sawUserMessage = true
      last = turnEnds.push(event, projector.updatesFor(event)) ?? last
    }
    fed = to
  }
  turnEnds.flush()
  await last
  await subagents?.drained()
}

/**
 * Feeds `projector` what it must know of events `fed.from..fed.to` (which the client was shown
 * another way) to project the ones after them as a replay would: the options set, the title, the
 * rewind generation (message ids), the first prompt (a derived title), and the calls of a turn
 * still open at `to`. Nothing else is read (a large event's data stays on disk). Returns whether a
 * prompt was fed by now.
 */
function primeProjector(
  projector: UpdateProjector,
  session: Session,
  fed: { readonly from: number; readonly to: number },
  sawUserMessage: boolean,
): boolean {
  const { from, to } = fed
  let saw = sawUserMessage
  let openTurnStart = to + 1
  for (let seq = to; seq >= from; seq--) {
    const type = (session.at(seq) as SessionEvent).type
    if (type === 'turn/end') break
    if (type === 'turn/start') {
      openTurnStart = seq
      break
    }
  }
  for (let seq = from; seq <= to; seq++) {
    const event = session.at(seq) as SessionEvent
    const type = event.type
    const first = type === 'user/message' && !saw
    if (first) saw = true
    if (
      first ||
      type === 'config/set' ||
      type === 'session/title' ||
      type === 'rewind:marker' ||
      seq >= openTurnStart
    ) {
      projector.updatesFor(event)
    }
  }
  return saw
}
