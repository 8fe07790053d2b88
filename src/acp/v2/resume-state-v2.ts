import { isValidSessionId } from '../../session/index.js'
import type { TurnState } from '../attach/turn-state.js'
import type { CallContext } from '../call-context.js'
import type { V2SessionNotifier } from './client-requests-v2.js'
import { isRecord } from './config-options-v2.js'

/** Whether `method` is a v1 call a v2 `session/resume` is served by (with or without the replay). */
export function resumesSession(method: string): boolean {
  return method === 'session/resume' || method === 'session/load'
}

/**
 * After a v2 `session/resume` (and its replay, if any) and before its answer, the session's
 * state now, as v2 asks of a resume: `running`, `requires_action` while the turn waits on the
 * user, or `idle` with how the last turn ended (context only, never a new completion).
 * Resolves once it was handed to the wire; a resume that failed sends nothing.
 */
export async function sendResumeState(
  params: unknown,
  call: CallContext,
  notify: V2SessionNotifier,
): Promise<void> {
  if (!isRecord(params) || typeof params.sessionId !== 'string') return
  const sessionId = params.sessionId
  const session = isValidSessionId(sessionId) ? call.sessions.get(sessionId) : undefined
  if (session) await notify(sessionId, stateUpdateV2(call.turnState(session)))
}

function stateUpdateV2(turn: TurnState): Record<string, unknown> {
  if (turn.state === 'idle')
    return {
      sessionUpdate: 'state_update',
      state: 'idle',
      ...(turn.stopReason !== undefined && { stopReason: turn.stopReason }),
    }
  return { sessionUpdate: 'state_update', state: turn.state === 'waiting' ? 'requires_action' : 'running' }
}
