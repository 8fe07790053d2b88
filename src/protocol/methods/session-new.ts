import type { AcpMethod } from '../method.js'
import { objectParams, optionalArray, requireAbsolutePath } from '../params.js'

/** `session/new`: a new session in an absolute `cwd`, answered once its header is durable. */
export const sessionNewMethod: AcpMethod = {
  name: 'session/new',
  async handle(raw, call) {
    const params = objectParams('session/new', raw)
    const cwd = requireAbsolutePath(params, 'cwd', 'session/new')
    optionalArray(params, 'mcpServers', 'session/new')
    optionalArray(params, 'additionalDirectories', 'session/new')
    const session = await call.sessions.createDurable(undefined, { meta: { cwd } })
    return { sessionId: session.id }
  },
}
