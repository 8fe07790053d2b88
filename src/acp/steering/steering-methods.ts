import type { Context } from 'cordis'
import { Steering } from '../../agent/steering/steering.js'
import { checkedParams } from '../extension-params.js'
import { defineMethod } from '../method.js'
import { runInLine } from '../requests/prompt-line.js'
import { openSession } from '../requests/session-access.js'
import type { AcpServer } from '../server.js'
import { sessionInjectMethod } from './inject-method.js'
import { steeringPrompt } from './steering-params.js'
import {
  validateRuntimeControlParams,
  validateRuntimeReadParams,
  validateSteeringParams,
} from './wire-validators.gen.js'

/**
 * `_session/steering {sessionId, prompt, idleBehavior?}`: gives `prompt` to the session's running
 * turn at its next safe point (`{outcome: "injected"}`; recorded and shown as a user message with
 * `_meta.dsh.steered`). When no turn takes it: `{outcome: "promptRequired", reason:
 * "noRunningTurn"}` if `idleBehavior` is `promptRequired` (nothing starts); otherwise it runs as a
 * prompt of its own, `{outcome: "started"}`, or `{outcome: "queued", messageId}` behind the
 * prompts already waiting. Unknown session: -32002; bad params: -32602.
 */
export const sessionSteeringMethod = defineMethod({
  name: '_session/steering',
  async handle(params: unknown, call) {
    const {
      sessionId,
      prompt: raw,
      idleBehavior,
    } = checkedParams('_session/steering', validateSteeringParams, params)
    const prompt = await steeringPrompt('_session/steering', call, sessionId, raw)
    const session = await openSession(call, sessionId)
    if (call.agent.features.get(Steering).steer(sessionId, prompt)) return { outcome: 'injected' }
    if (idleBehavior === 'promptRequired') return { outcome: 'promptRequired', reason: 'noRunningTurn' }
    const place = call.agent.queue.join(sessionId, prompt)
    // The turn outlives this request: its updates and its end are the session's, as any turn's.
    void runInLine(call, { session, prompt, place, signal: new AbortController().signal }).catch(() => {})
    return place.queued ? { outcome: 'queued', messageId: place.messageId } : { outcome: 'started' }
  },
})

/**
 * `_session/runtime/control {sessionId, action: "cancelQueuedMessage", messageId}` →
 * `{cancelled}`: takes a queued prompt back (its `session/prompt` answers `cancelled`; it never
 * runs). `cancelled: false` when no prompt waits with that id (it already runs, or is unknown).
 */
export const sessionRuntimeControlMethod = defineMethod({
  name: '_session/runtime/control',
  async handle(params: unknown, call) {
    const { sessionId, messageId } = checkedParams(
      '_session/runtime/control',
      validateRuntimeControlParams,
      params,
    )
    await openSession(call, sessionId)
    return { cancelled: call.agent.queue.takeBack(sessionId, messageId) }
  },
})

/**
 * `_session/runtime/read {sessionId, resource: "queuedMessages"}` →
 * `{queuedMessages: [{messageId, prompt, position}]}`: the prompts waiting, next first.
 */
export const sessionRuntimeReadMethod = defineMethod({
  name: '_session/runtime/read',
  async handle(params: unknown, call) {
    const { sessionId } = checkedParams('_session/runtime/read', validateRuntimeReadParams, params)
    await openSession(call, sessionId)
    return { queuedMessages: call.agent.queue.waiting(sessionId) }
  },
})

/** Registers the four methods on `server` for as long as `ctx` lives. */
export function registerSteeringMethods(ctx: Context, server: AcpServer): void {
  const methods = [
    sessionSteeringMethod,
    sessionInjectMethod,
    sessionRuntimeControlMethod,
    sessionRuntimeReadMethod,
  ]
  const unregister = methods.map((method) => server.register(method))
  ctx.on('dispose', () => {
    for (const remove of unregister) remove()
  })
}
