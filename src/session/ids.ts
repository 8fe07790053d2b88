import { randomBytes } from 'node:crypto'
import { SessionError, SessionErrorCode } from './errors.js'

export type SessionId = string

/** Valid session ids are filename-safe: they become path components in file backends. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/

export function isValidSessionId(id: unknown): id is SessionId {
  return typeof id === 'string' && SESSION_ID_PATTERN.test(id)
}

/** Throws `INVALID_SESSION_ID` unless `id` matches {@link SESSION_ID_PATTERN}. */
export function assertSessionId(id: unknown): asserts id is SessionId {
  if (!isValidSessionId(id)) {
    const shown =
      typeof id === 'string' ? JSON.stringify(id.length > 64 ? `${id.slice(0, 64)}…` : id) : typeof id
    throw new SessionError(
      SessionErrorCode.INVALID_SESSION_ID,
      `invalid session id ${shown}: expected 1-128 characters of A-Z a-z 0-9 _ -`,
      { sessionId: typeof id === 'string' ? id : null },
    )
  }
}

/** Milliseconds since the epoch. Injected so tests are deterministic. */
export type Clock = () => number

/** Mints new session ids. Injected so tests are deterministic. */
export type IdGenerator = () => SessionId

export const systemClock: Clock = () => Date.now()

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz'

function encodeBase32(value: bigint, length: number): string {
  let out = ''
  let rest = value
  for (let i = 0; i < length; i++) {
    out = CROCKFORD[Number(rest & 31n)] + out
    rest >>= 5n
  }
  return out
}

/**
 * `ses_` + 10 characters of millisecond time + 16 random characters (Crockford base32, lower case):
 * ids sort by creation time and never collide in practice.
 */
export function createTimeOrderedIdGenerator(clock: Clock = systemClock): IdGenerator {
  return () => {
    const time = encodeBase32(BigInt(Math.max(0, Math.floor(clock()))), 10)
    const random = encodeBase32(BigInt(`0x${randomBytes(10).toString('hex')}`), 16)
    return `ses_${time}${random}`
  }
}

/** A deterministic generator for tests and snapshots: `<prefix>1`, `<prefix>2`, ... */
export function createSequentialIdGenerator(prefix = 'ses_'): IdGenerator {
  let next = 0
  return () => `${prefix}${++next}`
}
