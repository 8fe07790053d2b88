import type { Readable } from 'node:stream'
import type { NotificationMessage, ResponseMessage } from 'vscode-jsonrpc'
import type { BatchPolicy } from '../batch.js'
import type { InboundMessage } from '../dispatcher.js'
import { classify, type Envelope, isWireId, type WireId } from '../envelope.js'
import { describeParseFailure, invalidRequest, parseError } from '../errors.js'
import type { RequestLedger } from '../ledger.js'
import { preview } from '../preview.js'
import { type LineSink, LineSplitter } from './line-splitter.js'

/**
 * Notifications by which the peer cancels one of its requests: method name → the params member
 * that holds the request's id (e.g. vscode-jsonrpc's `{ '$/cancelRequest': 'id' }`).
 */
export type CancelNotifications = Readonly<Record<string, string>>

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
  /** What a failing input stream reported (the input is closed after it). */
  readonly onError?: (error: Error) => void
  /** The cancellation notifications recognised; any other notification is handed on. Default: none. */
  readonly cancelNotifications?: CancelNotifications
  /** Where every admitted message goes. */
  readonly sink: MessageSink
  /** Whether batches are read (see `BatchPolicy`). Default: never (one -32600 per batch). */
  readonly batches?: BatchPolicy
}

/** Takes every message the reader admitted: the connection. */
export interface MessageSink {
  /** The requests and notifications of one input chunk, in wire order. */
  accept(messages: readonly InboundMessage[]): void
  /** The peer cancelled its request `id`, which is in flight; after the messages before it were accepted. */
  cancel(id: WireId): void
  /**
   * A response with an id, after the messages before it were accepted; false when it answers no
   * request of ours that is pending (the reader then logs it).
   */
  response(message: ResponseMessage): boolean
  /**
   * A batch was read (when `batches` accepts them): its requests `ids` are about to be handed over,
   * and `answers` are the errors of its refused entries. Called before the requests are accepted.
   */
  batch?(ids: readonly WireId[], answers: readonly ResponseMessage[]): void
}

type Outcome =
  | { readonly respond: ResponseMessage }
  | { readonly gather: InboundMessage }
  | { readonly cancel: WireId }
  | { readonly response: ResponseMessage; readonly id: WireId }
  | { readonly log: string }
  | { readonly batch: readonly unknown[] }

/**
 * Reads NDJSON: one JSON-RPC message per `\n`-terminated line.
 *
 * Only valid single messages go on, to `sink`. The reader itself answers, through `respond`: `-32700` (id null) for a line that is not UTF-8 JSON; `-32600` for an invalid
 * envelope (with the message's id when it is a string or integer not in flight, else null), for
 * a batch while `batches` does not accept them (one answer, id null), for an over-cap line (id
 * null), and for a request whose id is
 * already in flight (id null, `data.id` names it; the request is not dispatched). A cancellation
 * notification (see `cancelNotifications`) cancels its request at `sink` when that id is in
 * flight, and is logged and dropped otherwise. Responses with id null are logged and dropped; the
 * others go to `sink`, which says whether one answers a pending request of ours (else it is
 * logged).
 *
 * The requests and notifications of one input chunk are handed over together once the chunk is
 * split, in wire order. A cancellation or a response first hands over the messages before it,
 * then goes alone, so a cancellation always comes after the request it cancels.
 *
 * `closed` resolves once, at input EOF, error or close, after a last unterminated line has been
 * handled.
 */
export class NdjsonMessageReader {
  readonly closed: Promise<void>
  private resolveClosed!: () => void
  private isClosed = false
  private listening = false
  private readonly splitter: LineSplitter
  private readonly log: (message: string) => void
  private gathered: InboundMessage[] = []

  constructor(
    private readonly input: Readable,
    private readonly options: NdjsonReaderOptions,
  ) {
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

  /** Starts reading `input`; the returned function stops it. */
  listen(): () => void {
    if (this.listening) throw new Error('NdjsonMessageReader.listen may be called once')
    this.listening = true
    const onData = (chunk: Buffer | string) => {
      this.splitter.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk)
      this.handOver()
    }
    const onEnd = () => this.close()
    const onError = (error: Error) => {
      this.options.onError?.(error)
      this.close()
    }
    this.input.on('data', onData)
    this.input.on('end', onEnd)
    this.input.on('close', onEnd)
    this.input.on('error', onError)
    return () => {
      this.input.off('data', onData)
      this.input.off('end', onEnd)
      this.input.off('close', onEnd)
      this.input.off('error', onError)
    }
  }

  private close(): void {
    if (this.isClosed) return
    this.isClosed = true
    this.splitter.end()
    this.handOver()
    this.resolveClosed()
  }

  private handleLine(text: string, validUtf8: boolean): void {
    this.options.onLine?.(text)
    this.apply(this.route(text, validUtf8))
  }

  private apply(outcome: Outcome): void {
    if ('respond' in outcome) this.options.respond(outcome.respond)
    else if ('gather' in outcome) this.gathered.push(outcome.gather)
    else if ('cancel' in outcome) {
      this.handOver()
      this.options.sink.cancel(outcome.cancel)
    } else if ('response' in outcome) this.deliver(outcome.response, outcome.id)
    else if ('batch' in outcome) this.readBatch(outcome.batch)
    else this.log(outcome.log)
  }

  /**
   * A batch the policy accepts (JSON-RPC 2.0 §6): an empty one gets one -32600 (not an array);
   * otherwise each entry is read as a line would be, except that an invalid entry, a nested batch
   * and a request that must come alone get their own -32600 in the batch's answer. The sink opens
   * the batch before its requests are handed over, so their answers are gathered into one array.
   */
  private readBatch(entries: readonly unknown[]): void {
    if (entries.length === 0) {
      this.options.respond(invalidRequest(null, 'a batch must hold at least one message'))
      return
    }
    const outcomes = entries.map((entry) => this.routeEntry(entry))
    const answers: ResponseMessage[] = []
    const ids: WireId[] = []
    for (const outcome of outcomes) {
      if ('respond' in outcome) answers.push(outcome.respond)
      else if ('gather' in outcome && 'id' in outcome.gather) ids.push(outcome.gather.id)
    }
    const { sink } = this.options
    if (sink.batch) sink.batch(ids, answers)
    else for (const answer of answers) this.options.respond(answer)
    for (const outcome of outcomes) if (!('respond' in outcome)) this.apply(outcome)
  }

  /** One entry of a batch: invalid entries are answered with id null, as JSON-RPC 2.0 says. */
  private routeEntry(entry: unknown): Outcome {
    const envelope = classify(entry)
    if (envelope.kind === 'batch')
      return { respond: invalidRequest(null, 'a batch entry must not be a batch') }
    if (envelope.kind === 'invalid') return { respond: invalidRequest(null, envelope.reason) }
    if (envelope.kind === 'request' && this.options.batches?.unbatchable.has(envelope.message.method)) {
      const { id, method } = envelope.message
      return {
        respond: invalidRequest(
          this.options.ledger.hasInbound(id) ? null : id,
          `${method} must be sent on its own line, not in a batch`,
        ),
      }
    }
    return this.routeEnvelope(envelope)
  }

  /** Decides what one line becomes: a message for the sink, an error answer, or a log line. */
  private route(text: string, validUtf8: boolean): Outcome {
    if (!validUtf8) return { respond: parseError('the line is not valid UTF-8') }
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      // The engine's own wording varies across Node versions: it goes to the log, not the wire.
      this.log(`unparsable line: ${describeParseFailure(error)}`)
      return { respond: parseError('the line is not valid JSON') }
    }
    return this.routeEnvelope(classify(value))
  }

  private routeEnvelope(envelope: Envelope): Outcome {
    const { ledger } = this.options
    switch (envelope.kind) {
      case 'batch':
        if (this.options.batches?.accepted()) return { batch: envelope.entries }
        return { respond: invalidRequest(null, 'batches are not supported (ACP v1 has none)') }
      case 'invalid': {
        // Answering with an id still in flight would settle the wrong request on the peer's side.
        const id = envelope.id !== null && !ledger.hasInbound(envelope.id) ? envelope.id : null
        return { respond: invalidRequest(id, envelope.reason) }
      }
      case 'request': {
        const { id } = envelope.message
        if (ledger.admitInbound(id)) return { gather: envelope.message }
        return {
          respond: invalidRequest(null, `request id ${preview(id)} is already in flight`, { id }),
        }
      }
      case 'notification':
        return this.routeNotification(envelope.message)
      case 'response': {
        const { id } = envelope.message
        if (id === null) return { log: `ignored a response with id null: ${preview(envelope.message.error)}` }
        return { response: envelope.message, id }
      }
    }
  }

  private routeNotification(message: NotificationMessage): Outcome {
    const cancels = this.options.cancelNotifications
    const idParam = cancels && Object.hasOwn(cancels, message.method) ? cancels[message.method] : undefined
    if (idParam === undefined) return { gather: message }
    const params = message.params as Record<string, unknown> | undefined
    const id = params?.[idParam]
    if (!isWireId(id) || !this.options.ledger.hasInbound(id)) {
      return { log: `ignored ${message.method} for ${preview(id ?? null)}: no such request in flight` }
    }
    return { cancel: id }
  }

  /** Hands the requests and notifications gathered from the current chunk to `sink`. */
  private handOver(): void {
    const gathered = this.gathered
    if (gathered.length === 0) return
    this.gathered = []
    try {
      this.options.sink.accept(gathered)
    } catch (error) {
      this.log(`the dispatcher failed to take messages: ${describeParseFailure(error)}`)
    }
  }

  /** Hands a response over, after the messages before it. */
  private deliver(message: ResponseMessage, id: WireId): void {
    this.handOver()
    let known: boolean
    try {
      known = this.options.sink.response(message)
    } catch (error) {
      this.log(`the connection failed to take a response: ${describeParseFailure(error)}`)
      return
    }
    if (!known) this.log(`ignored a response to unknown request id ${preview(id)}`)
  }
}
