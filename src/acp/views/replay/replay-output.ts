import type { SessionHeader, UpdateProjector } from '../../../session/index.js'
import { configUpdates } from '../config-options.js'
import type { ViewCall } from '../view-call.js'
import { headerProjector } from './replay-head.js'
import { ReplayTurnEnds } from './replay-turn-ends.js'
import { type SubagentReplay, subagentReplay } from './subagent-replay.js'

/**
 * The projection a replay of the session of `header` shows this client: `session/load`'s, and the
 * catch-up on what other processes appended (caught-up.ts), so both show an event alike.
 */
export function replayProjector(call: ViewCall, header: SessionHeader): UpdateProjector {
  return headerProjector(header, configUpdates(call.agent))
}

/**
 * Where a replay's updates go: each turn's last one waits for the next event, to carry how the
 * turn ended; then to the subagent replay when the client shows subagents, else straight out.
 * The updates of events through `shownThrough` were sent already (an early load's head, see
 * shown-head.ts): they are rendered for this client's view, as then, and not sent again.
 */
export function replayOutput(
  call: ViewCall,
  shownThrough = 0,
): {
  readonly turnEnds: ReplayTurnEnds
  readonly subagents: SubagentReplay | undefined
} {
  const subagents = subagentReplay(call)
  const turnEnds = new ReplayTurnEnds((event, updates) => {
    if (event.seq <= shownThrough) {
      subagents?.shown(event)
      for (const update of updates) call.view.render(update)
      return undefined
    }
    if (subagents) return subagents.send(event, updates)
    let sent: Promise<void> | undefined
    for (const update of updates) sent = call.notify(update, event)
    return sent
  })
  return { turnEnds, subagents }
}
