import { defineMethod } from '../method.js'

/** `session/cancel` (notification): the session's running turn stops and ends `cancelled`. */
export const sessionCancelMethod = defineMethod({
  name: 'session/cancel',
  handle(params, call) {
    void call.agent.cancel(params.sessionId)
  },
})
