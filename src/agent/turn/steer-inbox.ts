import { type ContentBlock, messageIdOf, steeredMeta } from '../../session/index.js'
import type { TurnScope } from './turn-scope.js'

/**
 * The messages a user steered into one running turn (`_session/steering`), waiting for the turn's
 * next safe point: after a step's tool results, before the next model request. Once the turn
 * stops taking them (its last step ended, or it was cancelled) the inbox is closed: what was
 * pending is dropped and {@link offer} refuses.
 */
export class SteerInbox {
  private pending: (readonly ContentBlock[])[] = []
  private closed = false

  /** Queues `prompt` for the next safe point; false when the turn no longer takes steers. */
  offer(prompt: readonly ContentBlock[]): boolean {
    if (this.closed) return false
    this.pending.push(prompt)
    return true
  }

  /** True when steers wait for delivery. */
  get waiting(): boolean {
    return this.pending.length > 0
  }

  /** Takes every pending steer, oldest first. */
  take(): (readonly ContentBlock[])[] {
    const taken = this.pending
    this.pending = []
    return taken
  }

  /** Stops taking steers; what was pending is dropped (a cancel, or the turn's end). */
  close(): void {
    this.closed = true
    this.pending = []
  }
}

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
    const messageId = messageIdOf(event.seq)
    for (const block of content) {
      scope.send(
        { sessionUpdate: 'user_message_chunk', content: block, messageId, _meta: steeredMeta() },
        event.seq,
      )
    }
  }
}
