import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

/** Why a request is refused before anything of ACP runs: its HTTP status and a short reason. */
export interface Refusal {
  readonly status: 401 | 403 | 404 | 405 | 406 | 409 | 413 | 415 | 400 | 429 | 503
  readonly reason: string
}

/** Who may talk to the server: one bearer token, and the web origins allowed besides none. */
export interface Gate {
  readonly token: string
  /** Origins (`scheme://host[:port]`) a browser page may call from; default none. */
  readonly allowedOrigins: readonly string[]
}

/** The token's bytes, made once per gate (every request is compared against them). */
const expected = new WeakMap<Gate, Buffer>()
function tokenBytes(gate: Gate): Buffer {
  let known = expected.get(gate)
  if (!known) {
    known = Buffer.from(gate.token, 'utf8')
    expected.set(gate, known)
  }
  return known
}

/**
 * Whether `given` is the gate's token, in time that does not depend on where they differ. A
 * length that differs is refused at once: that says only how long the token is, which is no
 * secret (every token made here has the same length).
 */
function isToken(given: string, gate: Gate): boolean {
  const wanted = tokenBytes(gate)
  const bytes = Buffer.from(given, 'utf8')
  return bytes.length === wanted.length && timingSafeEqual(bytes, wanted)
}

/**
 * Checks a request's `Authorization: Bearer` token (compared in constant time) and its `Origin`:
 * a request without `Origin` comes from a program, not a page, and is let through; a page's is
 * refused unless its origin was allowed. Undefined: let it in.
 */
export function refusalOf(request: IncomingMessage, gate: Gate): Refusal | undefined {
  const origin = request.headers.origin
  if (origin !== undefined && !gate.allowedOrigins.includes(origin))
    return { status: 403, reason: `origin ${origin} is not allowed (see --allow-origin)` }
  const header = request.headers.authorization
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header)
  if (!match?.[1]) return { status: 401, reason: 'a bearer token is required (Authorization: Bearer TOKEN)' }
  if (!isToken(match[1], gate)) return { status: 401, reason: 'the bearer token is wrong' }
  return undefined
}
