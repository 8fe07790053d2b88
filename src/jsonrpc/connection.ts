import type { Readable, Writable } from 'node:stream'
import {
  CancellationStrategy,
  createMessageConnection,
  type Logger,
  type MessageConnection,
  type ResponseMessage,
} from 'vscode-jsonrpc/node'
import { InboundDispatcher, type InboundHandlers } from './dispatcher.js'
import { RequestLedger } from './ledger.js'
import { ACP_CANCEL_METHOD, NdjsonMessageReader } from './reader.js'
import { NdjsonMessageWriter } from './writer.js'

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
  /** Diagnostics from the wire layer and vscode-jsonrpc. Default: dropped. Never stdout. */
  readonly log?: (message: string) => void
}

export interface NdjsonConnection {
  /**
   * A vscode-jsonrpc connection over NDJSON for what we send: requests (matched with their
   * responses, cancelled as ACP spells it) and notifications. Call `listen()` once. The peer's
   * requests and notifications never reach it: `inbound` handles them.
   */
  readonly connection: MessageConnection
  readonly reader: NdjsonMessageReader
  readonly writer: NdjsonMessageWriter
  /** Resolves when every line written so far has been handed to the OS (or the output is gone). */
  drain(): Promise<void>
  /** Resolves at input EOF, input error or input close. Never rejects. */
  readonly closed: Promise<void>
  /** Requests read from the peer that have no response written yet (dispatched or still queued). */
  pendingRequests(): number
}

/**
 * Builds a connection that speaks ACP's NDJSON framing over `input`/`output`. The peer's requests
 * and notifications go to `options.inbound` through an `InboundDispatcher` (concurrent handlers,
 * the messages of one input chunk started in wire order within one event-loop turn); the lines
 * written while the messages of a chunk are still being started, or while other requests are
 * being answered, go out together (see `NdjsonMessageWriter`). See `NdjsonMessageReader` for
 * what the wire layer answers by itself.
 */
export function createNdjsonConnection(
  input: Readable,
  output: Writable,
  options: NdjsonConnectionOptions,
): NdjsonConnection {
  const log = options.log ?? (() => {})
  const tap = options.onWireLine
  const ledger = new RequestLedger()
  // A response whose result cannot be serialized still answers its request: with -32603.
  const respond = (response: ResponseMessage) => {
    const failure = writer.send(response)
    if (!failure) return
    log(`could not write a response: ${failure.message}`)
    if (response.id === null) return
    const fallback: ResponseMessage = {
      jsonrpc: '2.0',
      id: response.id,
      error: { code: -32603, message: `the result could not be serialized: ${failure.message}` },
    }
    writer.send(fallback)
  }
  const dispatcher = new InboundDispatcher(options.inbound, respond, log)
  const writer: NdjsonMessageWriter = new NdjsonMessageWriter(output, {
    ledger,
    holdWhile: () => dispatcher.backlog > 0,
    ...(tap && { onLine: (line: string) => tap('out', line) }),
  })
  const reader = new NdjsonMessageReader(input, {
    ledger,
    log,
    respond,
    inbound: dispatcher,
    ...(options.maxLineBytes !== undefined && { maxLineBytes: options.maxLineBytes }),
    ...(tap && { onLine: (line: string) => tap('in', line) }),
  })
  const connection = createMessageConnection(reader, writer, wireLogger(log), {
    cancellationStrategy: acpCancellation,
  })
  connection.onDispose(() => dispatcher.dispose())
  return {
    connection,
    reader,
    writer,
    drain: () => writer.drain(),
    closed: reader.closed,
    pendingRequests: () => ledger.inboundCount,
  }
}

/** Our own cancelled outbound requests go out as ACP's `$/cancel_request { requestId }`. */
const acpCancellation: CancellationStrategy = {
  receiver: CancellationStrategy.Message.receiver,
  sender: {
    sendCancellation: (connection, id) => connection.sendNotification(ACP_CANCEL_METHOD, { requestId: id }),
    cleanup: () => {},
  },
}

function wireLogger(log: (message: string) => void): Logger {
  return {
    error: (message) => log(`jsonrpc error: ${message}`),
    warn: (message) => log(`jsonrpc warning: ${message}`),
    info: (message) => log(`jsonrpc: ${message}`),
    log: (message) => log(`jsonrpc: ${message}`),
  }
}
