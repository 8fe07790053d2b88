import type {
  CancellationToken,
  Disposable,
  NotificationMessage,
  RequestMessage,
  ResponseMessage,
} from 'vscode-jsonrpc'
import { ResponseError } from 'vscode-jsonrpc'
import type { WireId } from './envelope.js'

/** A request or notification read from the peer, as the reader admitted it. */
export type InboundMessage = (RequestMessage & { id: WireId }) | NotificationMessage

/** What the peer's requests and notifications are handed to. */
export interface InboundHandlers {
  /**
   * Answers one request: its value (or a promise of it) is the result (`undefined` is sent as
   * `null`); a thrown `ResponseError` is sent as it is, anything else as `-32603`.
   */
  request(method: string, params: unknown, token: CancellationToken): unknown
  /** Handles one notification; what it throws is logged, nothing is answered. */
  notification(method: string, params: unknown): void
}

/**
 * Dispatches the requests and notifications the reader admitted, without a general JSON-RPC
 * engine in between (vscode-jsonrpc's queue, token sources, tracing and reply plumbing cost more
 * than the rest of a small request together; see bench/wire.bench.ts). Outbound requests and
 * their responses are not its business.
 *
 * Contracts, as with vscode-jsonrpc's default strategy before it:
 * - The messages of one chunk start in wire order, the first at once and each next one in its own
 *   `setImmediate` scheduled with it: every microtask the previous message queued has run before
 *   the next one starts (a pipelined `session/new` + `session/prompt` finds its session when
 *   creating it needs no I/O), and all of them start within one turn of the event loop.
 * - Handlers run concurrently: nothing waits for a handler to finish.
 * - Every request gets exactly one response, written through `respond` after its handler settled.
 * - A cancellation marks the request's token whether it runs or is still queued; a queued one
 *   starts with its token cancelled. The handler decides what to answer.
 */
export class InboundDispatcher {
  private readonly tokens = new Map<string, InboundToken>()
  private queued = 0
  private disposed = false

  constructor(
    private readonly handlers: InboundHandlers,
    private readonly respond: (response: ResponseMessage) => void,
    private readonly log: (message: string) => void,
  ) {}

  /** Messages accepted but not started yet. */
  get backlog(): number {
    return this.queued
  }

  /** Takes one chunk's messages, in wire order. */
  accept(messages: readonly InboundMessage[]): void {
    if (this.disposed) return
    for (const message of messages) {
      if ('id' in message) this.tokens.set(String(message.id), new InboundToken())
    }
    this.queued += messages.length
    const [first, ...rest] = messages
    if (first) this.start(first)
    for (const message of rest) setImmediate(this.start, message)
  }

  /** The peer cancelled request `id` (in flight or still queued); unknown ids are ignored. */
  cancel(id: WireId): void {
    this.tokens.get(String(id))?.cancel()
  }

  /** Starts nothing more; handlers already running still answer. */
  dispose(): void {
    this.disposed = true
  }

  private readonly start = (message: InboundMessage): void => {
    this.queued--
    if (this.disposed) return
    if ('id' in message) {
      void this.answer(message)
      return
    }
    try {
      this.handlers.notification(message.method, message.params)
    } catch (error) {
      this.log(`notification ${message.method} failed: ${describe(error)}`)
    }
  }

  private async answer(message: RequestMessage & { id: WireId }): Promise<void> {
    const key = String(message.id)
    const token = this.tokens.get(key) ?? new InboundToken()
    let response: ResponseMessage
    try {
      const result = await this.handlers.request(message.method, message.params, token)
      response = { jsonrpc: '2.0', id: message.id, result: result === undefined ? null : result }
    } catch (error) {
      response = { jsonrpc: '2.0', id: message.id, error: errorOf(message.method, error) }
    } finally {
      this.tokens.delete(key)
    }
    this.respond(response)
  }
}

function errorOf(method: string, error: unknown): NonNullable<ResponseMessage['error']> {
  if (error instanceof ResponseError) return error.toJson()
  return { code: -32603, message: `Request ${method} failed with message: ${describe(error)}` }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * A cancellation token for one inbound request. Listeners are kept only once someone listens; one
 * added after the cancellation is called soon, asynchronously (as with vscode-jsonrpc's tokens).
 * A listener that throws does not keep the others from running.
 */
export class InboundToken implements CancellationToken {
  isCancellationRequested = false
  private listeners: Array<(value: unknown) => unknown> | undefined

  readonly onCancellationRequested = (
    listener: (value: unknown) => unknown,
    thisArgs?: unknown,
    disposables?: Disposable[],
  ): Disposable => {
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
