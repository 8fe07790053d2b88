import type { ContentBlock } from '../../session/index.js'

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
