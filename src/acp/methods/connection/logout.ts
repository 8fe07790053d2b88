import { defineMethod } from '../../method.js'

/**
 * `logout` (advertised as `agentCapabilities.auth.logout`): forgets the API keys `dsh-acp setup`
 * stored; keys from the environment stay (the editor's settings hold them). A later `session/new`
 * that needs a key answers `auth_required`.
 */
export const logoutMethod = defineMethod({
  name: 'logout',
  async handle(_params, call) {
    await call.setup.logout()
    return {}
  },
})
