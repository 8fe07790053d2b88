import { Steering } from '../../agent/steering/steering.js'
import { checkedParams } from '../extension-params.js'
import { defineMethod } from '../method.js'
import { openSession } from '../requests/session-access.js'
import { steeringPrompt } from './steering-params.js'
import { validateInjectParams } from './wire-validators.gen.js'

/**
 * `_session/inject {sessionId, message}` (what acp-factory's `Session.inject` calls) →
 * `{success: true, outcome}`: a running turn takes `message` at its next safe point, as
 * `_session/steering` gives it (`injected`); when no turn runs it goes before the blocks of the
 * session's next prompt in this process (`held`: kept in memory, as a steer waiting for its safe
 * point is; a cancel of that prompt's turn does not return it). An empty `message` is acp-factory's
 * probe: nothing happens (`probe`). Unknown session: -32002; bad params or blocks: -32602.
 */
export const sessionInjectMethod = defineMethod({
  name: '_session/inject',
  async handle(params: unknown, call) {
    const { sessionId, message } = checkedParams('_session/inject', validateInjectParams, params)
    if (message.length === 0) {
      await openSession(call, sessionId)
      return { success: true, outcome: 'probe' }
    }
    const blocks = await steeringPrompt('_session/inject', call, sessionId, message)
    await openSession(call, sessionId)
    if (call.agent.features.get(Steering).steer(sessionId, blocks))
      return { success: true, outcome: 'injected' }
    call.agent.queue.hold(sessionId, blocks)
    return { success: true, outcome: 'held' }
  },
})
