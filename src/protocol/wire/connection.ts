import type { Readable, Writable } from 'node:stream'
import {
  type CancellationStrategy,
  CancellationTokenSource,
  createMessageConnection,
  type Logger,
  type Message,
  type MessageConnection,
} from 'vscode-jsonrpc/node'
import { batchSize, unpackBatches } from './batch.js'
import { RequestLedger } from './ledger.js'
import { ACP_CANCEL_METHOD, JSONRPC_CANCEL_METHOD, NdjsonMessageReader } from './reader.js'
import { NdjsonMessageWriter } from './writer.js'

/** Direction of a wire line: `in` was read from the peer, `out` was written to it. */
export type WireDirection = 'in' | 'out'

/** Sees every raw line on the wire, in both directions, without its line terminator. */
export type WireTap = (direction: WireDirection, line: string) => void

export interface NdjsonConnectionOptions {
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
  /** A vscode-jsonrpc connection over NDJSON, not yet listening: register handlers, then `listen()`. */
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
 * Builds a JSON-RPC connection that speaks ACP's NDJSON framing over `input`/`output`.
 * Handlers run concurrently (vscode-jsonrpc's default; `maxParallelism` is left unset so a
 * cancel is handled while the request it cancels still runs). The messages of one input chunk
 * are dispatched in one event-loop turn, in wire order (see `batch.ts`), and the lines written
 * while other requests are still being answered go out together at the end of the turn. See
 * `NdjsonMessageReader` for what the wire layer answers by itself, and `NdjsonMessageWriter`
 * for output guarantees.
 */
export function createNdjsonConnection(
  input: Readable,
  output: Writable,
  options: NdjsonConnectionOptions = {},
): NdjsonConnection {
  const log = options.log ?? (() => {})
  const tap = options.onWireLine
  const ledger = new RequestLedger()
  const backlog = new DispatchBacklog()
  const writer = new NdjsonMessageWriter(output, {
    ledger,
    holdWhile: () => backlog.size > 0,
    coalesceWhile: () => ledger.inboundCount > 0,
    ...(tap && { onLine: (line: string) => tap('out', line) }),
  })
  const reader = new NdjsonMessageReader(input, {
    ledger,
    log,
    batch: true,
    onDispatch: (message) => backlog.enter(message),
    respond: (response) => {
      writer
        .write(response)
        .catch((error: unknown) => log(`could not write an error response: ${String(error)}`))
    },
    ...(options.maxLineBytes !== undefined && { maxLineBytes: options.maxLineBytes }),
    ...(tap && { onLine: (line: string) => tap('in', line) }),
  })
  const connection = createMessageConnection(reader, writer, wireLogger(log), {
    cancellationStrategy: acpCancellation,
    messageStrategy: unpackBatches((message) => backlog.leave(message)),
  })
  return {
    connection,
    reader,
    writer,
    drain: () => writer.drain(),
    closed: reader.closed,
    pendingRequests: () => ledger.inboundCount,
  }
}

/**
 * Counts messages handed to vscode-jsonrpc that it has not started to handle yet (it takes one
 * message, or one carrier of a chunk's messages, per event-loop turn). While some are waiting,
 * their answers are coming: the writer may hold lines back to write them together. Cancel
 * notifications are skipped: vscode-jsonrpc may act on them at once without queueing them.
 */
class DispatchBacklog {
  size = 0

  enter(message: Message): void {
    if (counts(message)) this.size += batchSize(message)
  }

  leave(message: Message): void {
    if (counts(message) && this.size > 0) this.size--
  }
}

function counts(message: Message): boolean {
  return (message as { method?: unknown }).method !== JSONRPC_CANCEL_METHOD
}

/**
 * Cancellation as ACP spells it. Receiving: every request gets a live token, so a cancel that
 * lands while the request is still queued fires `onCancellationRequested` too (vscode-jsonrpc's
 * default hands such a request a frozen token whose event never fires; only
 * `isCancellationRequested` would tell). Sending: our own cancelled outbound requests go out as
 * `$/cancel_request { requestId }`.
 */
const acpCancellation: CancellationStrategy = {
  receiver: {
    createCancellationTokenSource() {
      const source = new CancellationTokenSource()
      void source.token
      return source
    },
  },
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
