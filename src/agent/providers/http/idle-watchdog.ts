/**
 * Calls `onIdle` once if `touch` is not called for `timeoutMs`. `touch` runs per body chunk, so it
 * only notes the time; the one timer, when due, looks at that time and waits again for the rest.
 * The timer does not keep the process alive.
 */
export class IdleWatchdog {
  #timer: NodeJS.Timeout | undefined
  #touched = 0
  fired = false

  constructor(
    private readonly timeoutMs: number,
    private readonly onIdle: () => void,
  ) {
    this.touch()
    this.#arm(timeoutMs)
  }

  touch(): void {
    this.#touched = performance.now()
  }

  stop(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => {
      const idle = performance.now() - this.#touched
      if (idle < this.timeoutMs) {
        this.#arm(this.timeoutMs - idle)
        return
      }
      this.fired = true
      this.onIdle()
    }, ms)
    this.#timer.unref()
  }
}
