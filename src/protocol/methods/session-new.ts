import { defineMethod } from '../method.js'
import { assertAbsolutePath } from '../params.js'

/** `session/new`: a new session in an absolute `cwd`, answered once its header is durable. */
export const sessionNewMethod = defineMethod({
  name: 'session/new',
  async handle(params, call) {
    const cwd = assertAbsolutePath('session/new', 'cwd', params.cwd)
    const session = await call.sessions.createDurable(undefined, { meta: { cwd } })
    return { sessionId: session.id }
  },
})
