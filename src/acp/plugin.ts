import type { Context } from 'cordis'
import { FORK_METHODS, SERVER_METHODS } from './capabilities.js'
import { registerGoalMethod } from './goals/goal-method.js'
import type { AcpMethod } from './method.js'
import { authenticateMethod } from './methods/connection/authenticate.js'
import { initializeMethod } from './methods/connection/initialize.js'
import { logoutMethod } from './methods/connection/logout.js'
import { sessionArchiveMethod, sessionUnarchiveMethod } from './methods/session-archive.js'
import { sessionCancelMethod } from './methods/session-cancel.js'
import { sessionCloseMethod } from './methods/session-close.js'
import { sessionDeleteMethod } from './methods/session-delete.js'
import { sessionForkMethod } from './methods/session-fork.js'
import { sessionListMethod } from './methods/session-list.js'
import { sessionLoadMethod } from './methods/session-load.js'
import { sessionNewMethod } from './methods/session-new.js'
import { sessionPromptMethod } from './methods/session-prompt.js'
import { sessionResumeMethod } from './methods/session-resume.js'
import { sessionOptionsMethod } from './methods/settings/session-options.js'
import { sessionSetConfigOptionMethod } from './methods/settings/session-set-config-option.js'
import { sessionSetModeMethod } from './methods/settings/session-set-mode.js'
import { sessionSetTitleMethod } from './methods/settings/session-set-title.js'
import { sessionStatusMethod } from './methods/settings/session-status.js'
import { registerProviderMethods } from './providers/provider-methods.js'
import { registerRewindMethods } from './rewind/rewind-methods.js'
import type { AcpMethodName } from './schema/acp-methods.gen.js'
import { AcpServer, type AcpServerConfig } from './server.js'
import { registerSteeringMethods } from './steering/steering-methods.js'
import { registerTrustMethods } from './trust/trust-apply.js'
import { registerAttachMethods } from './v2/attach/attach-methods.js'

/** One handler for each of `names`, each under its own name (so the names and the handlers cannot differ). */
type Handlers<Names extends readonly AcpMethodName[]> = { readonly [M in Names[number]]: AcpMethod<M> }

/**
 * Registers the methods `names` on `server`, in that order, for as long as the calling plugin lives
 * (one cordis listener: each costs). `names` is the list capabilities.ts advertises at start.
 */
function registerAll<Names extends readonly AcpMethodName[]>(
  ctx: Context,
  server: AcpServer,
  names: Names,
  handlers: Handlers<Names>,
): void {
  const unregister = names.map((name: Names[number]) => server.register(handlers[name]))
  ctx.on('dispose', () => {
    for (const remove of unregister) remove()
  })
}

/**
 * The ACP server plugin: provides `ctx.acp` with every baseline and session-lifecycle method.
 */
export const acpPlugin = {
  name: 'dsh-acp-server',
  inject: ['sessions', 'agent'],
  apply(ctx: Context, config: AcpServerConfig) {
    const server = new AcpServer(ctx, config, { sessions: ctx.sessions, agent: ctx.agent })
    ctx.set('acp', server)
    registerAll(ctx, server, SERVER_METHODS, {
      initialize: initializeMethod(config.agentInfo, config.protocolVersion),
      authenticate: authenticateMethod,
      logout: logoutMethod,
      'session/new': sessionNewMethod,
      'session/load': sessionLoadMethod,
      'session/resume': sessionResumeMethod,
      'session/list': sessionListMethod,
      'session/close': sessionCloseMethod,
      'session/delete': sessionDeleteMethod,
      'session/prompt': sessionPromptMethod,
      'session/cancel': sessionCancelMethod,
      'session/set_config_option': sessionSetConfigOptionMethod,
      'session/set_mode': sessionSetModeMethod,
      'session/set_title': sessionSetTitleMethod,
      'session/archive': sessionArchiveMethod,
      'session/unarchive': sessionUnarchiveMethod,
      'session/status': sessionStatusMethod,
    })
    registerRewindMethods(ctx, server)
    registerSteeringMethods(ctx, server)
    registerGoalMethod(ctx, server)
    registerTrustMethods(ctx, server)
    registerProviderMethods(ctx, server)
    registerAttachMethods(ctx, server)
    ctx.on('dispose', server.register(sessionOptionsMethod))
  },
}

/**
 * `session/fork` as its own plugin: while it runs, `initialize` advertises
 * `sessionCapabilities.fork` and the method works; disposed, both are gone (-32601).
 */
export const forkPlugin = {
  name: 'dsh-acp-fork',
  inject: ['acp'],
  apply(ctx: Context) {
    registerAll(ctx, ctx.acp, FORK_METHODS, { 'session/fork': sessionForkMethod })
  },
}
