import type { Readable } from 'node:stream'
import {
  AbstractMessageReader,
  type DataCallback,
  Disposable,
  type Message,
  type NotificationMessage,
  type ResponseMessage,
} from 'vscode-jsonrpc'
import type { InboundMessage } from './dispatcher.js'
import { classify, isWireId, type WireId } from './envelope.js'
import { describeParseFailure, invalidRequest, parseError } from './errors.js'
import type { RequestLedger } from './ledger.js'
import { type LineSink, LineSplitter } from './line-splitter.js'
import { preview } from './preview.js'

/** ACP's cancellation notification and the one vscode-jsonrpc understands. */
export const ACP_CANCEL_METHOD = '$/cancel_request'
export const JSONRPC_CANCEL_METHOD = '$/cancelRequest'

export interface NdjsonReaderOptions {
  /** Largest accepted line in bytes (without its terminator). Default 32 MiB. */
  readonly maxLineBytes?: number
  /** Ids in flight, shared with the writer that answers this reader's requests. */
  readonly ledger: RequestLedger
  /** The error sink: writes an error response to the peer, in order with all other output. */
  readonly respond: (response: ResponseMessage) => void
  /** Sees every non-blank input line as decoded, before it is checked (over-cap lines excepted). */
  readonly onLine?: (line: string) => void
  /** Diagnostics (stray responses, ignored cancellations); never the protocol channel. */
  readonly log?: (message: string) => void
  /**
   * Where requests, notifications and cancellations go (the connection gets only responses to its
   * own requests): one `accept` per input chunk with its messages in wire order, and `cancel` at
   * once, after the messages before it were accepted.
   */
  readonly inbound: InboundSink
}

/** Takes the peer's requests and notifications, e.g. an `InboundDispatcher`. */
export interface InboundSink {
  accept(messages: readonly InboundMessage[]): void
  cancel(id: WireId): void
}

type Outcome =
  | { readonly respond: ResponseMessage }
  | { readonly dispatch: Message }
  | { readonly log: string }

/**
 * A vscode-jsonrpc `MessageReader` for NDJSON: one JSON-RPC message per `\n`-terminated line.
 *
 * Only valid single messages go on: requests and notifications to `inbound`, responses to the
 * connection. The reader itself answers, through `respond`: `-32700` (id null) for a line that is not UTF-8 JSON; `-32600` for an invalid
 * envelope (with the message's id when it is a string or integer not in flight, else null), for
 * any batch (one answer, id null), for an over-cap line (id null), and for a request whose id is
 * already in flight (id null, `data.id` names it; the request is not dispatched). ACP's
 * `$/cancel_request {requestId}` (and `$/cancelRequest {id}`) cancels request `id` at `inbound`
 * when that id is in flight, and is dropped otherwise. Responses are passed on only when they
 * answer a request of ours that is pending; others are logged and dropped.
 *
 * The requests and notifications of one input chunk are handed over together once the chunk is
 * split, in wire order. A cancellation or a response first hands over the messages before it,
 * then goes alone, so a cancellation always comes after the request it cancels.
 *
 * `onClose` fires once, at input EOF, error or close, after a last unterminated line has been
 * handled; `closed` resolves at the same time.
 */
export class NdjsonMessageReader extends AbstractMessageReader {
  readonly closed: Promise<void>
  private resolveClosed!: () => void
  private isClosed = false
  private callback: DataCallback | undefined
  private readonly splitter: LineSplitter
  private readonly log: (message: string) => void
  private gathered: InboundMessage[] = []

  constructor(
    private readonly input: Readable,
    private readonly options: NdjsonReaderOptions,
  ) {
    super()
    this.log = options.log ?? (() => {})
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve
    })
    const sink: LineSink = {
      line: (text, validUtf8) => this.handleLine(text, validUtf8),
      overflow: (max) =>
        options.respond(
          invalidRequest(null, `line exceeds the limit of ${max} bytes`, { maxLineBytes: max }),
        ),
    }
    this.splitter = new LineSplitter(sink, options.maxLineBytes)
  }

  listen(callback: DataCallback): Disposable {
    if (this.callback) throw new Error('NdjsonMessageReader.listen may be called once')
    this.callback = callback
    const onData = (chunk: Buffer | string) => {
      this.splitter.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk)
      this.handOver()
    }
    const onEnd = () => this.close()
    const onError = (error: Error) => {
      this.fireError(error)
      this.close()
    }
    this.input.on('data', onData)
    this.input.on('end', onEnd)
    this.input.on('close', onEnd)
    this.input.on('error', onError)
    return Disposable.create(() => {
      this.input.off('data', onData)
      this.input.off('end', onEnd)
      this.input.off('close', onEnd)
      this.input.off('error', onError)
      this.callback = undefined
    })
  }

  private close(): void {
    if (this.isClosed) return
    this.isClosed = true
    this.splitter.end()
    this.handOver()
    this.fireClose()
    this.resolveClosed()
  }

  private handleLine(text: string, validUtf8: boolean): void {
    this.options.onLine?.(text)
    const outcome = this.route(text, validUtf8)
    if ('respond' in outcome) this.options.respond(outcome.respond)
    else if ('dispatch' in outcome) this.dispatch(outcome.dispatch)
    else this.log(outcome.log)
  }

  /** Decides what one line becomes: a message for the connection, an error answer, or a log line. */
  private route(text: string, validUtf8: boolean): Outcome {
    const { ledger } = this.options
    if (!validUtf8) return { respond: parseError('the line is not valid UTF-8') }
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      // The engine's own wording varies across Node versions: it goes to the log, not the wire.
      this.log(`unparsable line: ${describeParseFailure(error)}`)
      return { respond: parseError('the line is not valid JSON') }
    }
    const envelope = classify(value)
    switch (envelope.kind) {
      case 'batch':
        return { respond: invalidRequest(null, 'batches are not supported (ACP v1 has none)') }
      case 'invalid': {
        // Answering with an id still in flight would settle the wrong request on the peer's side.
        const id = envelope.id !== null && !ledger.hasInbound(envelope.id) ? envelope.id : null
        return { respond: invalidRequest(id, envelope.reason) }
      }
      case 'request': {
        const { id } = envelope.message
        if (ledger.admitInbound(id)) return { dispatch: envelope.message }
        return {
          respond: invalidRequest(null, `request id ${preview(id)} is already in flight`, { id }),
        }
      }
      case 'notification':
        return this.routeNotification(envelope.message)
      case 'response': {
        const { id } = envelope.message
        if (id === null) return { log: `ignored a response with id null: ${preview(envelope.message.error)}` }
        if (ledger.settleOutbound(id)) return { dispatch: envelope.message }
        return { log: `ignored a response to unknown request id ${preview(id)}` }
      }
    }
  }

  private routeNotification(message: NotificationMessage): Outcome {
    if (message.method !== ACP_CANCEL_METHOD && message.method !== JSONRPC_CANCEL_METHOD) {
      return { dispatch: message }
    }
    const params = message.params as Record<string, unknown> | undefined
    const id = message.method === ACP_CANCEL_METHOD ? params?.requestId : params?.id
    if (!isWireId(id) || !this.options.ledger.hasInbound(id)) {
      return { log: `ignored ${message.method} for ${preview(id ?? null)}: no such request in flight` }
    }
    const cancel: NotificationMessage = { jsonrpc: '2.0', method: JSONRPC_CANCEL_METHOD, params: { id } }
    return { dispatch: cancel }
  }

  private dispatch(message: Message): void {
    const method = (message as { method?: unknown }).method
    if (method === undefined) {
      this.handOver()
      this.deliver(message)
    } else if (method === JSONRPC_CANCEL_METHOD) {
      this.handOver()
      this.options.inbound.cancel((message as NotificationMessage & { params: { id: WireId } }).params.id)
    } else {
      this.gathered.push(message as InboundMessage)
    }
  }

  /** Hands the requests and notifications gathered from the current chunk to `inbound`. */
  private handOver(): void {
    const gathered = this.gathered
    if (gathered.length === 0) return
    this.gathered = []
    try {
      this.options.inbound.accept(gathered)
    } catch (error) {
      this.log(`the dispatcher failed to take messages: ${describeParseFailure(error)}`)
    }
  }

  private deliver(message: Message): void {
    if (!this.callback) return
    try {
      this.callback(message)
    } catch (error) {
      this.log(`the connection failed to take a message: ${describeParseFailure(error)}`)
    }
  }
}
