import type { Retention } from './cursor-log.js'

/** The bounds of `dsh-acp serve --listen`. Each is a floor of the SDK's or tighter; see docs/remote.md. */
export interface RemoteLimits {
  /** Logical connections at once; one more is answered 503. */
  readonly maxConnections: number
  /**
   * TCP (or TLS) sockets open at once, whatever they carry; one more is answered 503 and closed
   * before anything of it is read.
   */
  readonly maxSockets: number
  /** Largest POST body or WebSocket frame, in bytes (a message: the stdio line cap). */
  readonly maxMessageBytes: number
  /**
   * Bytes queued for a transport that does not read; past it the transport is closed. The same
   * bound holds for a client's requests not answered yet (queued behind a turn, running, waiting):
   * past it the next POST is answered 429 and a WebSocket closed with 1008.
   */
  readonly maxBufferedBytes: number
  /** A transport whose queued bytes did not shrink for this long is closed. */
  readonly maxOutputStallMs: number
  /** Every this many ms: an SSE comment, a WebSocket ping; a socket that missed a pong is dropped. */
  readonly keepaliveMs: number
  /** A request's headers must arrive within this many ms (a half-open socket is closed). */
  readonly headersTimeoutMs: number
  readonly retention: Retention
}

export const DEFAULT_LIMITS: RemoteLimits = {
  maxConnections: 256,
  maxSockets: 1024,
  maxMessageBytes: 32 * 1024 * 1024,
  maxBufferedBytes: 64 * 1024 * 1024,
  maxOutputStallMs: 60_000,
  keepaliveMs: 15_000,
  headersTimeoutMs: 10_000,
  retention: { messages: 10_000, seconds: 300, bytes: 64 * 1024 * 1024 },
}
