import { projectUpdates } from '../../session/index.js'
import type { AcpMethod } from '../method.js'
import { objectParams, optionalArray, requireAbsolutePath } from '../params.js'
import { assertSameCwd, openSession, sessionIdParam } from './session-access.js'

/**
 * `session/load`: makes the session live and replays its whole history (the store's projection,
 * each update with `_meta.dsh.seq`) as `session/update` notifications, then answers.
 */
export const sessionLoadMethod: AcpMethod = {
  name: 'session/load',
  advertise(capabilities) {
    capabilities.loadSession = true
  },
  async handle(raw, call) {
    const params = objectParams('session/load', raw)
    const sessionId = sessionIdParam(params, 'session/load')
    const cwd = requireAbsolutePath(params, 'cwd', 'session/load')
    optionalArray(params, 'mcpServers', 'session/load')
    const session = await openSession(call, sessionId)
    assertSameCwd(session, cwd, 'session/load')
    for (const update of projectUpdates(session.id, session.events())) call.notify(update)
    return {}
  },
}

/** `session/resume`: makes the session live without replaying anything. */
export const sessionResumeMethod: AcpMethod = {
  name: 'session/resume',
  advertise(capabilities) {
    capabilities.sessionCapabilities.resume = {}
  },
  async handle(raw, call) {
    const params = objectParams('session/resume', raw)
    const sessionId = sessionIdParam(params, 'session/resume')
    const cwd = requireAbsolutePath(params, 'cwd', 'session/resume')
    optionalArray(params, 'mcpServers', 'session/resume')
    const session = await openSession(call, sessionId)
    assertSameCwd(session, cwd, 'session/resume')
    return {}
  },
}
