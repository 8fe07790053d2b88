import type { CallContext } from '../call-context.js'

/**
 * Drops what `_session/inject` held for the session's next prompt (see `inject-method.ts`), once
 * the session is deleted or let go by its last client of this process (`session/close`,
 * `session/archive`): the message was meant for a prompt of that live session, and nothing else
 * would free it before the process exits. A client that opens the session again starts clean.
 */
export function dropHeldMessages(call: CallContext, sessionId: string): void {
  call.agent.queue.takeHeld(sessionId)
}
