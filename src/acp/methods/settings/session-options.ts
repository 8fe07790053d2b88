import { SESSION_OPTIONS } from '../../capabilities.js'
import { ProtocolError } from '../../errors.js'
import { defineMethod } from '../../method.js'
import { assertSessionId } from '../../requests/session-access.js'
import { configOptionsFor, modesFor, sessionSetup } from '../../views/config-options.js'

/** The `sessionId` of a `session/options` request, if any; anything else about the params is refused. */
function optionsTarget(params: unknown): string | undefined {
  const refuse = (problem: string, field: string) =>
    ProtocolError.invalidParams(`${SESSION_OPTIONS}: ${problem}`, { field })
  if (params === undefined || params === null) return undefined
  if (typeof params !== 'object' || Array.isArray(params)) throw refuse('params must be an object', 'params')
  const sessionId: unknown = 'sessionId' in params ? params.sessionId : undefined
  if (sessionId === undefined || sessionId === null) return undefined
  if (typeof sessionId !== 'string') throw refuse('sessionId must be a string', 'sessionId')
  return assertSessionId(sessionId)
}

/**
 * `session/options` (schema 1.31, unstable; advertised as `sessionCapabilities.options`): the
 * `configOptions` and `modes` a new session would start with (no `sessionId`: the defaults), or
 * those of an existing session as its log left them (a stored one is read for the call and let go;
 * -32002 when there is none). Nothing is created, and nothing is sent.
 */
export const sessionOptionsMethod = defineMethod({
  name: SESSION_OPTIONS,
  async handle(params, call) {
    const sessionId = optionsTarget(params)
    if (sessionId === undefined)
      return { configOptions: configOptionsFor(call.agent, {}), modes: modesFor(call.agent, {}) }
    if ((await call.sessions.whereIs(sessionId)) === undefined) throw ProtocolError.sessionNotFound(sessionId)
    return call.sessions.borrow(sessionId, (session) => sessionSetup(call.agent, session))
  },
})
