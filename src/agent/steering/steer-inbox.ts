import type { ContentBlock } from '../../session/index.js'

/** Who waits for one steer: told its message id once it is in the log, or that it was dropped. */
export interface SteerReceipt {
  delivered(messageId: string): void
  dropped(): void
}

interface PendingSteer {
  readonly prompt: readonly ContentBlock[]
  readonly receipt: SteerReceipt | undefined
}

/**
 * The messages a user steered into one running turn (`_session/steering`, or an ACP v2
 * `session/prompt` while the turn runs), waiting for the turn's next safe point: after a step's
 * tool results, before the next model request. Once the turn stops taking them (its last step
 * ended, or it was cancelled) the inbox is closed: what was pending is dropped (each receipt told)
 * and {@link offer} refuses.
 */
export class SteerInbox {
  private pending: PendingSteer[] = []
  private closed = false

  /** Queues `prompt` for the next safe point; false when the turn no longer takes steers. */
  offer(prompt: readonly ContentBlock[], receipt?: SteerReceipt): boolean {
    if (this.closed) return false
    this.pending.push({ prompt, receipt })
    return true
  }

  /** True when steers wait for delivery. */
  get waiting(): boolean {
    return this.pending.length > 0
  }

  /** Takes every pending steer, oldest first. */
  take(): readonly PendingSteer[] {
    const taken = this.pending
    this.pending = []
    return taken
  }

  /** Stops taking steers; what was pending is dropped (a cancel, or the turn's end). */
  close(): void {
    this.closed = true
    const dropped = this.pending
    this.pending = []
    for (const steer of dropped) steer.receipt?.dropped()
  }
}
