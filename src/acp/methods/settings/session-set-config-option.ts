import type { ConfigValue, Session } from '../../../session/index.js'
import type { CallContext } from '../../call-context.js'
import { defineMethod } from '../../method.js'
import { openSession } from '../../requests/session-access.js'
import { sendCaughtUp } from '../../views/caught-up.js'
import { configOptionsFor, configUpdates } from '../../views/config-options.js'

/**
 * Sets one option through the agent (a `config/set` in the log, durable before the answer) and,
 * when the value changed, sends the updates a replay will show for it. First the client is shown
 * what other processes appended to the session since (see `sendCaughtUp`).
 */
export async function setOption(call: CallContext, session: Session, option: string, value: ConfigValue) {
  // With the pen, after what other processes appended was shown (-32010 while one writes it).
  const pen = call.sessions.takePen(session)
  try {
    await sendCaughtUp(call, session)
    // Shown as soon as it is in the log: what is appended after it reaches this client after it.
    await call.agent.setConfig(session, option, value, (event) => {
      for (const update of configUpdates(call.agent)(session.config.values, option)) {
        void call.notify({ sessionId: session.id, update, _meta: { dsh: { seq: event.seq } } })
      }
    })
  } finally {
    await pen.release()
  }
}

/**
 * `session/set_config_option`: sets `mode`, `model` or `thought_level` and answers every option
 * with its current value. An option or value this agent does not offer is -32602; nothing changes.
 */
export const sessionSetConfigOptionMethod = defineMethod({
  name: 'session/set_config_option',
  async handle(params, call) {
    const session = await openSession(call, params.sessionId)
    await setOption(call, session, params.configId, params.value)
    return { configOptions: configOptionsFor(call.agent, session.config.values) }
  },
})
