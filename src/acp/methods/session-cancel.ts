import { defineMethod } from '../method.js'

/**
 * `session/cancel` (notification): the session's running turn stops and ends `cancelled`. A turn
 * another process runs on the store is cancelled there (asked through the store's board), as if
 * that process's own client had cancelled it.
 */
export const sessionCancelMethod = defineMethod({
  name: 'session/cancel',
  handle(params, call) {
    if (!call.agent.isRunning(params.sessionId)) call.cancelElsewhere(params.sessionId)
    void call.agent.cancel(params.sessionId)
  },
})
