import { defineMethod } from '../method.js'
import { assertWorkingDirectory } from '../params.js'

/**
 * `session/new`: a new session in an absolute `cwd` (no NUL; a directory when it exists), answered
 * once its header is durable.
 */
export const sessionNewMethod = defineMethod({
  name: 'session/new',
  async handle(params, call) {
    const cwd = assertWorkingDirectory('session/new', 'cwd', params.cwd)
    const session = await call.sessions.createDurable(undefined, { meta: { cwd } })
    return { sessionId: session.id }
  },
})
