import type { Readable, Writable } from 'node:stream'
import { type CancelNotifications, type InboundHandlers, NdjsonConnection } from '../../jsonrpc/index.js'
import { QuestionWithdrawn } from '../attach/questions/shared-questions.js'
import type { ClientRequestSender } from '../client/client-requests.js'
import type { ClientState } from '../method.js'
import { V2_UNBATCHABLE } from '../v2/reader.js'
import type { EarlyReplay } from '../views/replay/shown-head.js'

export interface ConnectionOptions {
  readonly maxLineBytes?: number
  /** Sees every raw line in both directions, as on the wire (the transcript tap). */
  readonly onWireLine?: (direction: 'in' | 'out', line: string) => void
  /** The client of an `initialize` already answered on this input (early-initialize.ts). */
  readonly client?: ClientState
  /** The head of a `session/load` replay already sent on this output (early-load.ts). */
  readonly earlyReplay?: EarlyReplay
}

/** The two streams of a connection, and its options. */
export interface ConnectionStreams extends ConnectionOptions {
  readonly input: Readable
  readonly output: Writable
}

/** What the connection does with what the wire reads. */
export interface WireHandlers {
  readonly log: (message: string) => void
  /** Whether the client's batches are read (ACP v2). */
  readonly batched: () => boolean
  readonly inbound: InboundHandlers
}

/**
 * How a client cancels one of its requests: ACP's `$/cancel_request { requestId }`, and the
 * `$/cancelRequest { id }` of vscode-jsonrpc's peers.
 */
const ACP_CANCEL_NOTIFICATIONS: CancelNotifications = {
  '$/cancel_request': 'requestId',
  '$/cancelRequest': 'id',
}

/** The NDJSON connection of one ACP client. */
export function openWire(streams: ConnectionStreams, handlers: WireHandlers): NdjsonConnection {
  return new NdjsonConnection(streams.input, streams.output, {
    ...(streams.maxLineBytes !== undefined && { maxLineBytes: streams.maxLineBytes }),
    ...(streams.onWireLine && { onWireLine: streams.onWireLine }),
    log: handlers.log,
    cancelNotifications: ACP_CANCEL_NOTIFICATIONS,
    batches: { accepted: handlers.batched, unbatchable: V2_UNBATCHABLE },
    inbound: handlers.inbound,
  })
}

/**
 * Our requests that are cancelled on the wire (`$/cancel_request`) when the turn that waits for
 * them is cancelled: a question the user would otherwise still see. The others are not: the client
 * answers a pending `session/request_permission` with `cancelled` itself on `session/cancel` (ACP),
 * and the `fs/*` and `terminal/*` requests finish at once.
 */
const CANCELLED_ON_THE_WIRE: ReadonlySet<string> = new Set(['elicitation/create'])
const ACP_OUTBOUND_CANCEL = { method: '$/cancel_request', idParam: 'requestId' } as const
/** The others are cancelled on the wire only when taken back because another client answered. */
const WITHDRAWAL_CANCEL = {
  ...ACP_OUTBOUND_CANCEL,
  when: (reason: unknown) => reason instanceof QuestionWithdrawn,
}

/** Our requests to the client over `wire`, each cancelled on the wire as the list above says. */
export function clientRequestSender(wire: NdjsonConnection): ClientRequestSender {
  return (method, params, signal) =>
    wire.request(
      method,
      params,
      signal,
      CANCELLED_ON_THE_WIRE.has(method) ? ACP_OUTBOUND_CANCEL : WITHDRAWAL_CANCEL,
    )
}
