import { userMessage } from '../../session/index.js'
import type { TurnScope } from '../turn/turn-scope.js'
import type { SteerInbox } from './steer-inbox.js'

/**
 * Records each steer pending in `inbox` as a `user/message {steered: true}` of the scope's turn
 * (outside any step), shows it as the user's whole message (`_meta.dsh.steered`), and tells its
 * receipt the message's id.
 */
export function deliverSteers(scope: TurnScope, inbox: SteerInbox): void {
  const steers = inbox.take()
  for (const [index, { prompt: content, receipt }] of steers.entries()) {
    let seq: number
    try {
      seq = scope.session.append({
        type: 'user/message',
        data: { turn: scope.turn, content, steered: true },
      }).seq
    } catch (error) {
      // The log refused it (the turn fails): none of the rest is inserted either.
      for (const rest of steers.slice(index)) rest.receipt?.dropped()
      throw error
    }
    const messageId = scope.session.messageIdAt(seq)
    scope.send(userMessage(messageId, content, true), seq)
    receipt?.delivered(messageId)
  }
}
