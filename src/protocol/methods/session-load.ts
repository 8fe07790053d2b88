import { projectUpdates } from '../../session/index.js'
import { defineMethod } from '../method.js'
import { announceSession } from '../session-announce.js'
import { configUpdates, sessionSetup } from '../session-config.js'
import { openSessionInCwd } from './session-access.js'

/**
 * `session/load`: makes the session live and replays its whole history (the store's projection,
 * each update with `_meta.dsh.seq`) as `session/update` notifications, then answers with the
 * session's `configOptions` and `modes` as its log left them.
 */
export const sessionLoadMethod = defineMethod({
  name: 'session/load',
  advertise(capabilities) {
    capabilities.loadSession = true
  },
  async handle(params, call) {
    const session = await openSessionInCwd(params, 'session/load', call)
    const replay = projectUpdates(session.id, session.events(), {
      configUpdates: configUpdates(call.agent),
      ...(session.header.title !== undefined && { headerTitle: session.header.title }),
    })
    for (const update of replay) call.notify(update)
    announceSession(call, session)
    return sessionSetup(call.agent, session)
  },
})

/** `session/resume`: makes the session live without replaying anything. */
export const sessionResumeMethod = defineMethod({
  name: 'session/resume',
  advertise(capabilities) {
    capabilities.sessionCapabilities.resume = {}
  },
  async handle(params, call) {
    const session = await openSessionInCwd(params, 'session/resume', call)
    announceSession(call, session)
    return sessionSetup(call.agent, session)
  },
})
