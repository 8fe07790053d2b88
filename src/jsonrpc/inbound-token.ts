import type { CancellationToken, Disposable } from 'vscode-jsonrpc'

/**
 * A cancellation token for one inbound request. Listeners are kept only once someone listens; one
 * added after the cancellation is called soon, asynchronously (as with vscode-jsonrpc's tokens).
 * A listener that throws does not keep the others from running. `onCancellationRequested` is a
 * method: call it on the token.
 */
export class InboundToken implements CancellationToken {
  isCancellationRequested = false
  private listeners: Array<(value: unknown) => unknown> | undefined

  onCancellationRequested(
    listener: (value: unknown) => unknown,
    thisArgs?: unknown,
    disposables?: Disposable[],
  ): Disposable {
    const bound = thisArgs === undefined ? listener : listener.bind(thisArgs)
    if (this.isCancellationRequested) {
      let live = true
      queueMicrotask(() => {
        if (live) callSafely(bound)
      })
      return {
        dispose: () => {
          live = false
        },
      }
    }
    this.listeners ??= []
    this.listeners.push(bound)
    const subscription = {
      dispose: () => {
        const index = this.listeners?.indexOf(bound) ?? -1
        if (index !== -1) this.listeners?.splice(index, 1)
      },
    }
    disposables?.push(subscription)
    return subscription
  }

  cancel(): void {
    if (this.isCancellationRequested) return
    this.isCancellationRequested = true
    const listeners = this.listeners ?? []
    this.listeners = undefined
    for (const listener of listeners) callSafely(listener)
  }
}

function callSafely(listener: (value: unknown) => unknown): void {
  try {
    listener(undefined)
  } catch {
    // A listener's failure is its own; the cancellation still reaches the others.
  }
}
