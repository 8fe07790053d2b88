import { CONFIG_OPTION } from '../../../session/index.js'
import { defineMethod } from '../../method.js'
import { openSession } from '../../requests/session-access.js'
import { setOption } from './session-set-config-option.js'

/** `session/set_mode`: the `mode` option by another name (clients use either). */
export const sessionSetModeMethod = defineMethod({
  name: 'session/set_mode',
  async handle(params, call) {
    const session = await openSession(call, params.sessionId)
    await setOption(call, session, CONFIG_OPTION.mode, params.modeId)
    return {}
  },
})
