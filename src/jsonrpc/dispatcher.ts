import type { CancellationToken, NotificationMessage, RequestMessage, ResponseMessage } from 'vscode-jsonrpc'
import { ResponseError } from 'vscode-jsonrpc'
import { boundedError } from './bounded-error.js'
import type { WireId } from './envelope.js'
import { InboundToken } from './inbound-token.js'

/** A request or notification read from the peer, as the reader admitted it. */
export type InboundMessage = (RequestMessage & { id: WireId }) | NotificationMessage

/** What the peer's requests and notifications are handed to. */
export interface InboundHandlers {
  /**
   * Answers one request: its value (or a promise of it) is the result (`undefined` is sent as
   * `null`); a thrown `ResponseError` is sent as it is, anything else as `-32603`. `id`: the request's own.
   */
  request(method: string, params: unknown, token: CancellationToken, id: WireId): unknown
  /** Handles one notification; what it throws is logged, nothing is answered. */
  notification(method: string, params: unknown): void
  /**
   * The error a running request of `method` is answered with at once when the peer cancels it (its
   * handler's later result is then dropped); undefined leaves the answer to the handler, which sees
   * its token fire.
   */
  cancelledAnswer?(method: string): ResponseError<unknown> | undefined
}

/** A request whose handler returned a promise that has not settled, nor been answered on cancel. */
interface RunningRequest {
  readonly key: string
  readonly id: WireId
  readonly method: string
  readonly token: InboundToken
}

/**
 * Dispatches the requests and notifications the reader admitted, without a general JSON-RPC
 * engine's queue in between (vscode-jsonrpc's queue, token sources, tracing and reply plumbing cost
 * more than the rest of a small request together; see bench/wire.bench.ts). Outbound requests
 * and their responses are the connection's business (see `OutboundRequests`).
 *
 * Contracts:
 * - Messages start one at a time, in wire order across chunks. The first message of a chunk
 *   starts at once when nothing is queued before it.
 * - A request whose handler returns a value (not a promise) is answered at once, and the next
 *   message starts at once after it: everything it did, it did synchronously. After any other
 *   message (a handler that returned a promise, a notification), the next one starts in its own
 *   `setImmediate`, so every microtask the previous message queued has run before the next one
 *   starts (a pipelined `session/new` + `session/prompt` finds its session when creating it needs
 *   no I/O). The messages of one chunk all start within one turn of the event loop.
 * - Handlers run concurrently: nothing waits for a handler's promise to settle.
 * - Every request gets exactly one response, written through `respond` once its handler settled.
 * - A cancellation of a request whose method has a `cancelledAnswer` error answers it with that
 *   error at once when it runs (what its handler settles with later is dropped), and in its turn,
 *   without running it, when it is still queued. For any other request it marks the token, and a
 *   queued one starts with its token cancelled: the handler decides what to answer.
 */
export class InboundDispatcher {
  /** Requests whose handler returned a promise that has not settled yet, by id. */
  private readonly running = new Map<string, RunningRequest>()
  /** Ids of queued requests cancelled before they started. */
  private readonly cancelledEarly = new Set<string>()
  private queue: InboundMessage[] = []
  private head = 0
  private draining = false
  private disposed = false

  constructor(
    private readonly handlers: InboundHandlers,
    private readonly respond: (response: ResponseMessage) => void,
    private readonly log: (message: string) => void,
  ) {}

  /** Messages accepted but not started yet. */
  get backlog(): number {
    return this.queue.length - this.head
  }

  /** Takes one chunk's messages, in wire order. */
  accept(messages: readonly InboundMessage[]): void {
    if (this.disposed) return
    for (const message of messages) this.queue.push(message)
    if (!this.draining && this.scheduled === 0) this.drain()
    else this.scheduleSteps()
  }

  /** The peer cancelled request `id` (in flight or still queued); unknown ids are ignored. */
  cancel(id: WireId): void {
    const key = String(id)
    const running = this.running.get(key)
    if (!running) {
      if (this.backlog > 0) this.cancelledEarly.add(key)
      return
    }
    running.token.cancel()
    const answer = this.handlers.cancelledAnswer?.(running.method)
    if (answer && this.running.get(key) === running) {
      this.running.delete(key)
      this.respond({ jsonrpc: '2.0', id: running.id, error: errorOf(running.method, answer) })
    }
  }

  /** Starts nothing more; handlers already running still answer. */
  dispose(): void {
    this.disposed = true
    this.queue = []
    this.head = 0
    this.cancelledEarly.clear()
  }

  /**
   * Starts queued messages in order while each one is done synchronously; after one that is not,
   * the rest wait for their steps (one `setImmediate` per queued message, all scheduled now, so
   * they start within this turn of the event loop, each after the microtasks before it).
   */
  private drain(): void {
    this.draining = true
    try {
      while (this.head < this.queue.length && !this.disposed) {
        const message = this.queue[this.head++] as InboundMessage
        if (!this.start(message)) break
      }
    } finally {
      this.draining = false
      this.compact()
    }
    this.scheduleSteps()
  }

  /** Steps scheduled and not run yet; each starts at least the next queued message, if any. */
  private scheduled = 0

  private scheduleSteps(): void {
    if (this.disposed) return
    while (this.scheduled < this.backlog) {
      this.scheduled++
      setImmediate(this.step)
    }
  }

  private readonly step = (): void => {
    this.scheduled--
    if (!this.draining && this.backlog > 0) this.drain()
  }

  private compact(): void {
    if (this.head === this.queue.length) {
      this.queue = []
      this.head = 0
      this.cancelledEarly.clear()
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head)
      this.head = 0
    }
  }

  /** Starts one message; true when the next may start at once (it was answered synchronously). */
  private start(message: InboundMessage): boolean {
    if (!('id' in message)) {
      try {
        this.handlers.notification(message.method, message.params)
      } catch (error) {
        this.log(`notification ${message.method} failed: ${describe(error)}`)
      }
      return false
    }
    const { id, method } = message
    const key = String(id)
    const token = new InboundToken()
    if (this.cancelledEarly.size > 0 && this.cancelledEarly.delete(key)) {
      const answer = this.handlers.cancelledAnswer?.(method)
      if (answer) {
        this.respond({ jsonrpc: '2.0', id, error: errorOf(method, answer) })
        return true
      }
      token.cancel()
    }
    let result: unknown
    try {
      result = this.handlers.request(method, message.params, token, id)
    } catch (error) {
      this.respond({ jsonrpc: '2.0', id, error: errorOf(method, error) })
      return true
    }
    if (!isPromiseLike(result)) {
      this.respond({ jsonrpc: '2.0', id, result: result === undefined ? null : result })
      return true
    }
    const running: RunningRequest = { key, id, method, token }
    this.running.set(key, running)
    result.then(
      (value) => this.answer(running, { jsonrpc: '2.0', id, result: value === undefined ? null : value }),
      (error: unknown) => this.answer(running, { jsonrpc: '2.0', id, error: errorOf(method, error) }),
    )
    return false
  }

  /** Answers a running request once its handler settled, unless it was answered when cancelled. */
  private answer(running: RunningRequest, response: ResponseMessage): void {
    if (this.running.get(running.key) !== running) return
    this.running.delete(running.key)
    this.respond(response)
  }
}

/** True for a value with a `then` method: a handler that answers later. */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function'
}

/** The error sent for what a handler threw: bounded in size (see `boundedError`). */
function errorOf(method: string, error: unknown): NonNullable<ResponseMessage['error']> {
  if (error instanceof ResponseError) return boundedError(error.toJson())
  return boundedError({ code: -32603, message: `Request ${method} failed with message: ${describe(error)}` })
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
