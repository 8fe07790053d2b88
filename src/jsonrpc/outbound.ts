import {
  ConnectionError,
  ConnectionErrors,
  ErrorCodes,
  type RequestMessage,
  ResponseError,
  type ResponseMessage,
} from 'vscode-jsonrpc'

/** How an outbound request aborted by its signal is cancelled on the wire: `{ method, params: { [idParam]: id } }`. */
export interface OutboundCancel {
  readonly method: string
  readonly idParam: string
  /** Whether an abort for `reason` is cancelled on the wire (absent: every abort is). */
  readonly when?: (reason: unknown) => boolean
}

/** What `OutboundRequests` writes through: the error when the message could not be serialized. */
export type SendMessage = (
  message: RequestMessage | { jsonrpc: '2.0'; method: string; params: object },
) => Error | undefined

/** A request of ours waiting for its response; `live` is false once its caller stopped waiting (aborted). */
interface Pending {
  live: boolean
  readonly resolve: (value: unknown) => void
  readonly reject: (error: unknown) => void
  readonly done: () => void
}

/**
 * The requests we send to the peer, matched with their responses.
 *
 * Contracts:
 * - Ids are the integers 0, 1, 2, … in send order (as vscode-jsonrpc numbers them); the request is
 *   written synchronously by `request`.
 * - A response settles its request in its own `setImmediate` after it was read, responses in the
 *   order read (as vscode-jsonrpc's message queue does): its `result`, or its `error` as a
 *   `ResponseError` with the peer's code, message and data.
 * - `signal` aborting rejects the request at once with the signal's reason; its late response is
 *   dropped without a word. Nothing is sent on the wire for it unless `cancel` was given (to the
 *   constructor, or for this one request; `false` for this request: nothing). A
 *   request whose signal has already aborted is not sent at all.
 * - Once the connection is closed (`close()`), new requests reject with a `ConnectionError`
 *   ("Connection is closed."); pending ones keep waiting, since a response may still be read.
 *   `dispose()` rejects every pending request with `PendingResponseRejected` (their late
 *   responses are dropped without a word).
 * - A request that cannot be serialized rejects with `MessageWriteError`; nothing is written.
 */
export class OutboundRequests {
  private nextId = 0
  private readonly pending = new Map<number, Pending>()
  private closed = false

  constructor(
    private readonly send: SendMessage,
    private readonly cancel?: OutboundCancel,
  ) {}

  request(
    method: string,
    params: unknown,
    signal?: AbortSignal,
    cancel: OutboundCancel | false | undefined = this.cancel,
  ): Promise<unknown> {
    if (this.closed)
      return Promise.reject(new ConnectionError(ConnectionErrors.Closed, 'Connection is closed.'))
    if (signal?.aborted) return Promise.reject(signal.reason)
    const id = this.nextId++
    const message: RequestMessage = { jsonrpc: '2.0', id, method }
    if (params !== undefined) message.params = params as object
    const failure = this.send(message)
    if (failure) {
      return Promise.reject(
        new ResponseError(ErrorCodes.MessageWriteError, failure.message || 'Unknown reason'),
      )
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        pending.live = false
        reject(signal?.reason)
        if (cancel && (cancel.when?.(signal?.reason) ?? true))
          this.send({ jsonrpc: '2.0', method: cancel.method, params: { [cancel.idParam]: id } })
      }
      const pending: Pending = {
        live: true,
        resolve,
        reject,
        done: () => signal?.removeEventListener('abort', onAbort),
      }
      this.pending.set(id, pending)
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** Settles the request `response` answers; false when no request of ours with its id is pending. */
  settle(response: ResponseMessage): boolean {
    const { id } = response
    if (typeof id !== 'number') return false
    const pending = this.pending.get(id)
    if (!pending) return false
    this.pending.delete(id)
    pending.done()
    if (!pending.live) return true
    const { error } = response
    setImmediate(() => {
      if (error) pending.reject(new ResponseError(error.code, error.message, error.data))
      else pending.resolve(response.result)
    })
    return true
  }

  /** Requests sent and not answered yet (aborted ones included until their response came). */
  get size(): number {
    return this.pending.size
  }

  /** New requests are refused from now on. */
  close(): void {
    this.closed = true
  }

  dispose(): void {
    this.closed = true
    const error = new ResponseError(
      ErrorCodes.PendingResponseRejected,
      'Pending response rejected since connection got disposed',
    )
    for (const request of this.pending.values()) {
      request.done()
      if (request.live) request.reject(error)
      request.live = false // its late response is dropped without a word
    }
  }
}
