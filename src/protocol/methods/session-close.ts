import type { AcpMethod } from '../method.js'
import { objectParams } from '../params.js'
import { sessionIdParam } from './session-access.js'

/** `session/close`: cancels a running turn as `session/cancel` would, waits for it, then lets go. */
export const sessionCloseMethod: AcpMethod = {
  name: 'session/close',
  advertise(capabilities) {
    capabilities.sessionCapabilities.close = {}
  },
  async handle(raw, call) {
    const sessionId = sessionIdParam(objectParams('session/close', raw), 'session/close')
    call.sessions.require(sessionId)
    await call.agent.cancel(sessionId)
    await call.sessions.close(sessionId)
    return {}
  },
}

/** `session/delete`: cancels a running turn, then removes the session from memory and disk. */
export const sessionDeleteMethod: AcpMethod = {
  name: 'session/delete',
  advertise(capabilities) {
    capabilities.sessionCapabilities.delete = {}
  },
  async handle(raw, call) {
    const sessionId = sessionIdParam(objectParams('session/delete', raw), 'session/delete')
    await call.agent.cancel(sessionId)
    await call.sessions.delete(sessionId)
    return {}
  },
}
