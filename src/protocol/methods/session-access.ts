import { isValidSessionId, type Session } from '../../session/index.js'
import { ProtocolError } from '../errors.js'
import type { MethodCall } from '../method.js'
import { objectParams, optionalArray, type Params, requireAbsolutePath, requireString } from '../params.js'

/** The `sessionId` param; an id that cannot exist is answered like an unknown one (-32002). */
export function sessionIdParam(params: Params, method: string): string {
  const id = requireString(params, 'sessionId', method)
  if (!isValidSessionId(id)) throw ProtocolError.sessionNotFound(id)
  return id
}

/** The live session, or the persisted one made live (-32002 when there is none). */
export async function openSession(call: MethodCall, sessionId: string): Promise<Session> {
  return call.sessions.open(sessionId)
}

/** Requests that name a session's `cwd` must name the directory the session belongs to. */
export function assertSameCwd(session: Session, cwd: string, method: string): void {
  if (session.cwd !== cwd) {
    throw ProtocolError.invalidParams(
      `${method}: cwd ${JSON.stringify(cwd)} is not the directory of session ${session.id} (${JSON.stringify(session.cwd)})`,
      { sessionId: session.id, cwd, sessionCwd: session.cwd },
    )
  }
}

/**
 * The shared params of `session/load`, `session/resume` and `session/fork`: `sessionId`, an
 * absolute `cwd` that is the session's own, and an optional `mcpServers` array. Opens the session.
 */
export async function openSessionInCwd(
  raw: unknown,
  method: string,
  call: MethodCall,
): Promise<{ params: Params; session: Session }> {
  const params = objectParams(method, raw)
  const sessionId = sessionIdParam(params, method)
  const cwd = requireAbsolutePath(params, 'cwd', method)
  optionalArray(params, 'mcpServers', method)
  const session = await openSession(call, sessionId)
  assertSameCwd(session, cwd, method)
  return { params, session }
}
