import type { NdjsonConnection } from '../../jsonrpc/index.js'
import type { CallScope } from '../call-context.js'
import { configUpdates } from '../views/config-options.js'
import { warmLoadPath } from '../views/replay/load-warmup.js'
import type { RunningCalls } from './running-calls.js'

/** How long a connection is idle after `initialize` before it warms the load path up. */
const WARM_UP_DELAY_MS = 50

/** What the warm-up watches of its connection. */
export interface WarmUpWatch {
  readonly calls: RunningCalls
  readonly wire: NdjsonConnection
  readonly scope: CallScope
  /** Whether the connection's output is gone (then there is no one left to warm up for). */
  readonly outputGone: () => boolean
}

/**
 * Once `initialize` was answered, after {@link WARM_UP_DELAY_MS} with no call running: runs the
 * load path once without sending anything (`warmLoadPath`), so a new process's first
 * `session/load` is not slowed by compiling it. A client that sends its requests at once is not
 * competed with: the warm-up waits until it is idle again, and stops reading when a call comes in.
 * Not counted as running: `settle` does not wait for it, and its timer keeps no process alive.
 */
export class LoadWarmUp {
  private started = false

  constructor(private readonly watch: WarmUpWatch) {}

  /** Starts the warm-up, once per connection. */
  startWhenIdle(): void {
    if (this.started) return
    this.started = true
    const { calls, wire, scope, outputGone } = this.watch
    const busy = () => calls.busy || wire.pendingRequests() > 0
    const later = () => setTimeout(run, WARM_UP_DELAY_MS).unref()
    const run = (): void => {
      if (outputGone()) return
      if (busy()) calls.whenIdle(later)
      else void warmLoadPath(scope.sessions, configUpdates(scope.agent), busy)
    }
    later()
  }
}
