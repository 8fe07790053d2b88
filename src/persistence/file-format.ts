import { SessionError, SessionErrorCode } from '../session/errors.js'
import type { SessionHeader } from '../session/header.js'
import type { SessionId } from '../session/ids.js'
import type { SessionEvent } from '../session/log/events.js'

/** Version of the session file format, the header's `version`. */
export const FILE_VERSION = 1

/** The first line of a session file, with its newline. Key order is fixed. */
export function headerLine(header: SessionHeader): string {
  const { id, createdAt, cwd, parentSession, seedLength, title, subagent } = header
  return `${JSON.stringify({
    version: FILE_VERSION,
    id,
    createdAt,
    cwd,
    ...(parentSession !== undefined && { parentSession }),
    ...(seedLength !== undefined && { seedLength }),
    ...(title !== undefined && { title }),
    ...(subagent !== undefined && { subagent: { turn: subagent.turn, callId: subagent.callId } }),
  })}\n`
}

/**
 * The file line of an event (without its newline): exactly `JSON.stringify(event)` for an event
 * whose own fields are `seq`, `type`, `time` and `data` in that order, as `Session.append` makes
 * them, but only `data` goes through `JSON.stringify` (the per-event hot path of a turn).
 */
export function eventLine(event: SessionEvent): string {
  return `{"seq":${event.seq},"type":${JSON.stringify(event.type)},"time":${JSON.stringify(event.time)},"data":${JSON.stringify(event.data)}}`
}

function corrupt(file: string, message: string, data: Record<string, unknown> = {}): SessionError {
  return new SessionError(SessionErrorCode.CORRUPT_SESSION, `${file}:1: ${message}`, {
    file,
    line: 1,
    ...data,
  })
}

/**
 * Parses and checks line 1 of `file`: a version-1 header naming `expectedId` (when given).
 * Throws `CORRUPT_SESSION` naming the file and line 1.
 */
export function parseHeader(text: string, file: string, expectedId?: SessionId): SessionHeader {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw corrupt(file, `header is not JSON: ${(error as Error).message}`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw corrupt(file, 'header is not an object')
  }
  const h = value as Record<string, unknown>
  if (h.version !== FILE_VERSION) throw corrupt(file, `unsupported version ${JSON.stringify(h.version)}`)
  if (typeof h.id !== 'string') throw corrupt(file, 'header has no id')
  if (expectedId !== undefined && h.id !== expectedId) {
    throw corrupt(file, `header names session ${h.id}, not ${expectedId}`)
  }
  if (typeof h.createdAt !== 'string' || typeof h.cwd !== 'string') {
    throw corrupt(file, 'header needs string createdAt and cwd')
  }
  if (h.parentSession !== undefined && typeof h.parentSession !== 'string') {
    throw corrupt(file, 'parentSession must be a string')
  }
  if (h.seedLength !== undefined && !(Number.isInteger(h.seedLength) && (h.seedLength as number) >= 0)) {
    throw corrupt(file, 'seedLength must be a non-negative integer')
  }
  if (h.title !== undefined && typeof h.title !== 'string') throw corrupt(file, 'title must be a string')
  const subagent = h.subagent as { turn?: unknown; callId?: unknown } | undefined
  if (
    subagent !== undefined &&
    (typeof subagent !== 'object' ||
      subagent === null ||
      !Number.isSafeInteger(subagent.turn) ||
      (subagent.turn as number) < 1 ||
      typeof subagent.callId !== 'string' ||
      subagent.callId === '' ||
      h.parentSession === undefined)
  ) {
    throw corrupt(file, 'subagent must be { turn, callId } of the parentSession')
  }
  return {
    id: h.id,
    createdAt: h.createdAt,
    cwd: h.cwd,
    ...(h.parentSession !== undefined && { parentSession: h.parentSession as string }),
    ...(h.seedLength !== undefined && { seedLength: h.seedLength as number }),
    ...(h.title !== undefined && { title: h.title as string }),
    ...(subagent !== undefined && {
      subagent: { turn: subagent.turn as number, callId: subagent.callId as string },
    }),
  }
}

/** `CORRUPT_SESSION` naming the file and the line (1 is the header) where it went wrong. */
export function corruptLine(file: string, line: number, message: string): SessionError {
  return new SessionError(SessionErrorCode.CORRUPT_SESSION, `${file}:${line}: ${message}`, { file, line })
}
