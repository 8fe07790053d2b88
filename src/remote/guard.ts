import { createHash, timingSafeEqual } from 'node:crypto'
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

const digest = (text: string) => createHash('sha256').update(text).digest()

/** The token's digest, made once per gate (every request is compared against it). */
const expected = new WeakMap<Gate, Buffer>()
function expectedDigest(gate: Gate): Buffer {
  let known = expected.get(gate)
  if (!known) {
    known = digest(gate.token)
    expected.set(gate, known)
  }
  return known
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
  if (!timingSafeEqual(digest(match[1]), expectedDigest(gate)))
    return { status: 401, reason: 'the bearer token is wrong' }
  return undefined
}
