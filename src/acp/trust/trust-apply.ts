import type { Context } from 'cordis'
import { isObject } from '../../lib/is.js'
import { TRUST_APPLY } from '../capabilities.js'
import { ProtocolError } from '../errors.js'
import { defineMethod } from '../method.js'
import { reconnectMcpServers } from '../requests/mcp-servers.js'
import { assertWorkingDirectory } from '../requests/params.js'
import { assertSameCwd, openSession } from '../requests/session-access.js'
import type { AcpServer } from '../server.js'
import { TRUST_DECISIONS, type TrustDecision, TrustRefusal, type WorkspaceTrustReport } from './trust-wire.js'

interface TrustApplyParams {
  readonly cwd: string
  readonly decision: TrustDecision
  readonly sessionId?: string
}

/** The params, or -32602 naming what is wrong. */
function checked(params: unknown): TrustApplyParams {
  const bad = (what: string) => ProtocolError.invalidParams(`${TRUST_APPLY}: ${what}`)
  if (!isObject(params)) throw bad('params must be an object {cwd, decision, sessionId?}')
  const { cwd, decision, sessionId } = params
  if (typeof cwd !== 'string') throw bad('cwd must be an absolute path')
  if (typeof decision !== 'string' || !(TRUST_DECISIONS as readonly string[]).includes(decision))
    throw bad(`decision must be one of ${TRUST_DECISIONS.join(', ')}`)
  if (sessionId !== undefined && typeof sessionId !== 'string') throw bad('sessionId must be a string')
  return { cwd, decision: decision as TrustDecision, ...(sessionId !== undefined && { sessionId }) }
}

/**
 * `trust/apply {cwd, decision, sessionId?}` → `{workspaceTrust}` (the workspace-trust RFD): takes
 * the user's decision about the workspace of `cwd` and, with a `sessionId` (required for
 * `trust_session`; the session must be in `cwd`), reloads that session's project context: the
 * project's MCP servers start (or stop, on `decline`). A decision the workspace does not offer
 * (`trust_repo` outside a repository) is -32602.
 */
export const trustApplyMethod = defineMethod({
  name: TRUST_APPLY,
  async handle(params: unknown, call): Promise<{ workspaceTrust: WorkspaceTrustReport }> {
    const { cwd, decision, sessionId } = checked(params)
    assertWorkingDirectory(TRUST_APPLY, 'cwd', cwd)
    const session = sessionId === undefined ? undefined : await openSession(call, sessionId)
    if (session !== undefined) assertSameCwd(session, cwd, TRUST_APPLY)
    let workspaceTrust: WorkspaceTrustReport
    try {
      workspaceTrust = call.setup.trust.apply(cwd, decision, sessionId)
    } catch (error) {
      if (error instanceof TrustRefusal) throw ProtocolError.invalidParams(`${TRUST_APPLY}: ${error.message}`)
      throw error
    }
    if (session !== undefined) await reconnectMcpServers(call, session)
    return { workspaceTrust }
  },
})

/** Registers `trust/apply` for as long as the calling plugin lives. */
export function registerTrustMethods(ctx: Context, server: AcpServer): void {
  const unregister = server.register(trustApplyMethod)
  ctx.on('dispose', unregister)
}
