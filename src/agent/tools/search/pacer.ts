import { setImmediate as nextTurn } from 'node:timers/promises'
import { AbortedError } from '../../../lib/abort.js'

/** How long a search runs on the event loop before it lets other work (requests, signals) run. */
const SLICE_MS = 8

/**
 * Cooperative time slicing for a search: `due()` is cheap and says when the current slice is used
 * up; `rest()` then gives the event loop a full turn (I/O, timers, signals) and throws
 * {@link AbortedError} once `signal` aborted. A loop that calls `if (pacer.due()) await
 * pacer.rest()` between units of work therefore never holds the event loop for much longer than
 * one slice plus one unit, and stops within one slice of a cancel.
 */
export class Pacer {
  private sliceStart = performance.now()

  constructor(private readonly signal: AbortSignal) {}

  due(): boolean {
    return this.signal.aborted || performance.now() - this.sliceStart >= SLICE_MS
  }

  async rest(): Promise<void> {
    if (!this.signal.aborted) await nextTurn()
    if (this.signal.aborted) throw new AbortedError()
    this.sliceStart = performance.now()
  }
}
