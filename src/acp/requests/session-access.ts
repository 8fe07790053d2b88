import { isValidSessionId } from '../../session/ids.js'
import type { Session } from '../../session/index.js'
import type { CallContext } from '../call-context.js'
import { ProtocolError } from '../errors.js'
import { assertWorkingDirectory } from './params.js'

/** A `sessionId` that cannot exist is answered like an unknown one (-32002). */
export function assertSessionId(id: string): string {
  if (!isValidSessionId(id)) throw ProtocolError.sessionNotFound(id)
  return id
}

/** The live session, or the persisted one made live (-32002 when there is none). */
export async function openSession(call: CallContext, sessionId: string): Promise<Session> {
  return call.sessions.open(assertSessionId(sessionId))
}

/** Requests that name a session's `cwd` must name the directory the session belongs to. */
export function assertSameCwd(session: Pick<Session, 'id' | 'cwd'>, cwd: string, method: string): void {
  if (session.cwd !== cwd) {
    throw ProtocolError.invalidParams(
      `${method}: cwd ${JSON.stringify(cwd)} is not the directory of session ${session.id} (${JSON.stringify(session.cwd)})`,
      { sessionId: session.id, cwd, sessionCwd: session.cwd },
    )
  }
}

/**
 * What `session/load`, `session/resume` and `session/fork` share: a `cwd` that is an existing
 * directory (checked before the session is opened, so nothing is replayed or made live for a
 * vanished one; the stored session stays listed and deletable) and the session's own. Opens the
 * session.
 */
export async function openSessionInCwd(
  params: { sessionId: string; cwd: string },
  method: string,
  call: CallContext,
): Promise<Session> {
  assertSessionId(params.sessionId)
  assertWorkingDirectory(method, 'cwd', params.cwd)
  const session = await openSession(call, params.sessionId)
  assertSameCwd(session, params.cwd, method)
  return session
}
