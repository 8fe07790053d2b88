import type { Readable, Writable } from 'node:stream'
import type { NotificationMessage, ResponseMessage } from 'vscode-jsonrpc'
import { BatchAnswers, type BatchPolicy } from './batch.js'
import { InboundDispatcher, type InboundHandlers } from './dispatcher.js'
import { RequestLedger } from './ledger.js'
import { type OutboundCancel, OutboundRequests } from './outbound.js'
import { type CancelNotifications, NdjsonMessageReader } from './read/reader.js'
import { NdjsonMessageWriter } from './write/writer.js'

/** Direction of a wire line: `in` was read from the peer, `out` was written to it. */
export type WireDirection = 'in' | 'out'

/** Sees every raw line on the wire, in both directions, without its line terminator. */
export type WireTap = (direction: WireDirection, line: string) => void

export interface NdjsonConnectionOptions {
  /** Handles the peer's requests and notifications (see `InboundDispatcher`). */
  readonly inbound: InboundHandlers
  /** Largest accepted input line in bytes. Default 32 MiB (the ACP SDK's default). */
  readonly maxLineBytes?: number
  /**
   * The transcript tap. Input lines are reported before they are checked, including lines that
   * fail to parse (lines over the cap are not reported; their error response is). Output lines are
   * reported as written, including the error responses the reader writes.
   */
  readonly onWireLine?: WireTap
  /** Diagnostics from the wire layer. Default: dropped. Never stdout. */
  readonly log?: (message: string) => void
  /** The notifications by which the peer cancels its requests (see `CancelNotifications`). Default: none. */
  readonly cancelNotifications?: CancelNotifications
  /** When given, our requests aborted by their signal are cancelled on the wire so. Default: never. */
  readonly outboundCancel?: OutboundCancel
  /** Whether the peer's batches are read (see `BatchPolicy`). Default: never. */
  readonly batches?: BatchPolicy
}

/**
 * One JSON-RPC connection over NDJSON on `input`/`output`, both directions:
 *
 * - The peer's requests and notifications go to `options.inbound` through an `InboundDispatcher`
 *   (concurrent handlers, the messages of one input chunk started in wire order within one
 *   event-loop turn); its cancellations (`cancelNotifications`) go to the dispatcher too. A result
 *   that cannot be serialized is answered with -32603.
 * - `request` sends a request of ours and settles with its response (see `OutboundRequests`);
 *   `notify` sends a notification.
 * - A batch (when `batches` accepts them) is answered with one array line once every request in it
 *   was answered (see `BatchAnswers`); the updates its handlers send go out as they come.
 * - The lines written within one microtask chain go out together (see `NdjsonMessageWriter`).
 *   See `NdjsonMessageReader` for what the wire layer answers by itself.
 *
 * It reads from construction on. Input and output errors are logged as `connection error: …`.
 */
export class NdjsonConnection {
  readonly writer: NdjsonMessageWriter
  /** Resolves at input EOF, input error or input close. Never rejects. */
  readonly closed: Promise<void>
  /** Resolves when the output failed or closed (EPIPE: the peer is gone). Never rejects. */
  readonly outputClosed: Promise<void>
  private readonly ledger = new RequestLedger()
  private readonly dispatcher: InboundDispatcher
  private readonly outbound: OutboundRequests
  private readonly log: (message: string) => void
  private readonly batchAnswers = new BatchAnswers((answers) => this.respondAll(answers))

  constructor(input: Readable, output: Writable, options: NdjsonConnectionOptions) {
    const log = options.log ?? (() => {})
    this.log = log
    const tap = options.onWireLine
    const onError = (error: Error) => log(`connection error: ${error.message}`)
    this.dispatcher = new InboundDispatcher(options.inbound, this.respond, log)
    this.writer = new NdjsonMessageWriter(output, {
      ledger: this.ledger,
      ...(tap && { onLine: (line: string) => tap('out', line) }),
    })
    this.outbound = new OutboundRequests((message) => this.writer.send(message), options.outboundCancel)
    this.writer.onError(([error]) => onError(error))
    this.outputClosed = new Promise((resolve) => {
      this.writer.onClose(() => {
        this.outbound.close()
        resolve()
      })
    })
    const reader = new NdjsonMessageReader(input, {
      ledger: this.ledger,
      log,
      onError,
      respond: this.respond,
      sink: {
        accept: (messages) => this.dispatcher.accept(messages),
        cancel: (id) => this.dispatcher.cancel(id),
        response: (message) => this.outbound.settle(message),
        batch: (ids, answers) => this.batchAnswers.open(ids, answers),
      },
      ...(options.batches && { batches: options.batches }),
      ...(options.cancelNotifications && { cancelNotifications: options.cancelNotifications }),
      ...(options.maxLineBytes !== undefined && { maxLineBytes: options.maxLineBytes }),
      ...(tap && { onLine: (line: string) => tap('in', line) }),
    })
    this.closed = reader.closed.then(() => this.outbound.close())
    reader.listen()
  }

  /**
   * Sends request `method` to the peer; resolves with its result, rejects with its error as a
   * `ResponseError`, or with `signal`'s reason at once when it aborts (see `OutboundRequests`).
   * `cancel`: how this request is cancelled on the wire when `signal` aborts (`false`: never;
   * default: `outboundCancel`).
   */
  request(
    method: string,
    params: unknown,
    signal?: AbortSignal,
    cancel?: OutboundCancel | false,
  ): Promise<unknown> {
    return this.outbound.request(method, params, signal, cancel)
  }

  /**
   * Sends notification `method`, in order with everything else written. Resolves when it was
   * handed to the output (or the output is gone); rejects only when it cannot be serialized.
   * `serialized`: the line exactly as the writer would write it (see `NdjsonMessageWriter.write`).
   */
  notify(method: string, params: unknown, serialized?: Uint8Array): Promise<void> {
    const message: NotificationMessage = { jsonrpc: '2.0', method }
    if (params !== undefined) message.params = params as object
    return this.writer.write(message, serialized)
  }

  /** Resolves when every line written so far has been handed to the OS (or the output is gone). */
  drain(): Promise<void> {
    return this.writer.drain()
  }

  /** Requests read from the peer that have no response written yet (dispatched or still queued). */
  pendingRequests(): number {
    return this.ledger.inboundCount
  }

  /**
   * Starts no more of the peer's messages (running handlers still answer), rejects our pending
   * requests with `PendingResponseRejected`, and stops waiting for the output's `'drain'`.
   */
  dispose(): void {
    this.dispatcher.dispose()
    this.outbound.dispose()
    this.writer.dispose()
  }

  /** A response whose result cannot be serialized still answers its request: with -32603. */
  private readonly respond = (response: ResponseMessage): void => {
    if (this.batchAnswers.take(response)) return
    const failure = this.writer.send(response)
    if (!failure) return
    this.log(`could not write a response: ${failure.message}`)
    if (response.id === null) return
    const fallback: ResponseMessage = {
      jsonrpc: '2.0',
      id: response.id,
      error: { code: -32603, message: `the result could not be serialized: ${failure.message}` },
    }
    this.writer.send(fallback)
  }

  /**
   * A batch's answers as one array line; an answer whose result cannot be serialized is -32603 in
   * it, so the others still go out.
   */
  private respondAll(answers: readonly ResponseMessage[]): void {
    const sendable = answers.map((answer) => {
      try {
        JSON.stringify(answer)
        return answer
      } catch (error) {
        this.log(`could not write a response: ${(error as Error).message}`)
        const message = `the result could not be serialized: ${(error as Error).message}`
        return { jsonrpc: '2.0', id: answer.id, error: { code: -32603, message } } satisfies ResponseMessage
      }
    })
    const failure = this.writer.send(sendable)
    if (failure) this.log(`could not write a batch's answers: ${failure.message}`)
  }
}

/** `new NdjsonConnection(input, output, options)`. */
export function createNdjsonConnection(
  input: Readable,
  output: Writable,
  options: NdjsonConnectionOptions,
): NdjsonConnection {
  return new NdjsonConnection(input, output, options)
}
