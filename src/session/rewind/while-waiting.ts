/**
 * A computation run at the event loop's next check phase (`setImmediate`), when the caller is
 * waiting on I/O, or at once when its result is wanted first; `cancel` drops it if not run. What
 * it throws is thrown by `result`.
 */
export class WhileWaiting<T> {
  private done: { readonly value: T } | { readonly error: unknown } | undefined
  private immediate: NodeJS.Immediate | undefined

  constructor(private readonly compute: () => T) {
    this.immediate = setImmediate(() => this.run())
  }

  result(): T {
    const done = this.run()
    if ('error' in done) throw done.error
    return done.value
  }

  cancel(): void {
    if (this.immediate) clearImmediate(this.immediate)
    this.immediate = undefined
  }

  private run(): { readonly value: T } | { readonly error: unknown } {
    this.cancel()
    if (this.done === undefined) {
      try {
        this.done = { value: this.compute() }
      } catch (error) {
        this.done = { error }
      }
    }
    return this.done
  }
}
