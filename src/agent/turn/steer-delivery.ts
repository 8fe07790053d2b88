import { steeredMeta } from '../../session/index.js'
import type { SteerInbox } from './steer-inbox.js'
import type { TurnScope } from './turn-scope.js'

/**
 * Records each steer pending in `inbox` as a `user/message {steered: true}` of the scope's turn
 * (outside any step) and shows it as the user's message, its chunks marked `_meta.dsh.steered`.
 */
export function deliverSteers(scope: TurnScope, inbox: SteerInbox): void {
  for (const content of inbox.take()) {
    const event = scope.session.append({
      type: 'user/message',
      data: { turn: scope.turn, content, steered: true },
    })
    const messageId = scope.session.messageIdAt(event.seq)
    for (const block of content) {
      scope.send(
        { sessionUpdate: 'user_message_chunk', content: block, messageId, _meta: steeredMeta() },
        event.seq,
      )
    }
  }
}
