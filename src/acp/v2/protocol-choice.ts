import type { ClientState } from '../client-state.js'
import { ErrorCode, ProtocolError } from '../errors.js'

/** `--protocol`: the ACP versions a server serves (`auto`: v1 and the v2 draft). */
export type ProtocolChoice = 'auto' | 'v1' | 'v2'

/** ACP's "unsupported protocol version" error code (the SDK's `RequestError.unsupportedProtocolVersion`). */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022

/** The one version `--protocol` pins, or undefined for `auto`. */
export function pinnedVersion(choice: ProtocolChoice | undefined): number | undefined {
  if (choice === 'v1') return 1
  if (choice === 'v2') return 2
  return undefined
}

/**
 * The version a connection's first `initialize` selects, as the SDK's protocol router does: with
 * both served, the highest at or below the requested one (v1 for anything below 2, as v1 answers
 * every client); v1 alone serves every client v1; v2 alone refuses a client asking for less (-32022,
 * `data: {requested, supported: [2]}`).
 */
export function selectVersion(requested: number, pinned: number | undefined): number {
  if (pinned === 1) return 1
  if (pinned === 2) {
    if (requested >= 2) return 2
    throw new ProtocolError(UNSUPPORTED_PROTOCOL_VERSION, 'Unsupported protocol version', {
      requested,
      supported: [2],
    })
  }
  return requested >= 2 ? 2 : 1
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
