/**
 * The calls of one connection whose handler has not finished (and what a handler asked to send
 * after its answer), and who waits for that count to reach zero.
 */
export class RunningCalls {
  private count = 0
  private idleWaiters: Array<() => void> = []

  /** Whether a call is running now. */
  get busy(): boolean {
    return this.count > 0
  }

  start(): void {
    this.count++
  }

  finish(): void {
    if (--this.count > 0 || this.idleWaiters.length === 0) return
    const waiters = this.idleWaiters
    this.idleWaiters = []
    for (const resolve of waiters) resolve()
  }

  /** Calls `then` the next time the last running call finishes. */
  whenIdle(then: () => void): void {
    this.idleWaiters.push(then)
  }

  /** Counts `turn` as running until it settles. */
  track(turn: Promise<unknown>): void {
    this.start()
    void turn.finally(() => this.finish())
  }

  /**
   * Runs what a handler asked to send after its answer: once the dispatcher has written the
   * response (it does so in the microtasks after the handler settles; an immediate runs after
   * them), counted as running so the connection's `settle` waits for it.
   */
  runAfterResponse(tasks: ReadonlyArray<() => void>, warn: (message: string) => void): void {
    if (tasks.length === 0) return
    this.start()
    setImmediate(() => {
      try {
        for (const task of tasks) task()
      } catch (error) {
        warn(`after response: ${(error as Error).message}`)
      } finally {
        this.finish()
      }
    })
  }
}
