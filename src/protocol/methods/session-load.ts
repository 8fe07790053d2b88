import { projectUpdates } from '../../session/index.js'
import type { AcpMethod } from '../method.js'
import { openSessionInCwd } from './session-access.js'

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
    const { session } = await openSessionInCwd(raw, 'session/load', call)
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
    await openSessionInCwd(raw, 'session/resume', call)
    return {}
  },
}
