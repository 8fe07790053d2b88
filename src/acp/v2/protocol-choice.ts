import type { ClientState } from '../client-state.js'
import { ErrorCode, ProtocolError } from '../errors.js'
import { chosenVersion } from './version-choice.js'

/** ACP's "unsupported protocol version" error code (the SDK's `RequestError.unsupportedProtocolVersion`). */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022

/**
 * The version a connection's first `initialize` selects ({@link chosenVersion}); v2 alone refuses a
 * client asking for less (-32022, `data: {requested, supported: [2]}`).
 */
export function selectVersion(requested: number, pinned: number | undefined): number {
  const version = chosenVersion(requested, pinned)
  if (version !== undefined) return version
  throw new ProtocolError(UNSUPPORTED_PROTOCOL_VERSION, 'Unsupported protocol version', {
    requested,
    supported: [2],
  })
}

/** v2 connections whose client sent a request other than `initialize` (a repeat is then refused). */
const busyV2Clients = new WeakSet<ClientState>()

/** Notes that a v2 client sent `method` (a request): after anything but `initialize`, no repeat. */
export function noteV2Request(client: ClientState, method: string): void {
  if (method !== 'initialize') busyV2Clients.add(client)
}

/**
 * A repeated `initialize` is answered by the version the first one selected; the connection is
 * never re-routed (the SDK router's rule). v1 answers any repeat in v1. v2 accepts a repeat that
 * asks for v2 or later before any other request, and refuses (-32600) one asking for less, or one
 * after another request.
 */
export function repeatVersion(previous: ClientState, requested: number): number {
  if (previous.protocolVersion !== 2) return previous.protocolVersion
  if (requested < 2)
    throw new ProtocolError(
      ErrorCode.InvalidRequest,
      'ACP v2: a repeated initialize must ask for version 2 or later',
    )
  if (busyV2Clients.has(previous))
    throw new ProtocolError(
      ErrorCode.InvalidRequest,
      'ACP v2: initialize must not be repeated after other requests',
    )
  return 2
}
