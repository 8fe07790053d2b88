import type { Context } from 'cordis'
import type { AcpMethod } from './method.js'
import { initializeMethod } from './methods/initialize.js'
import { sessionCancelMethod } from './methods/session-cancel.js'
import { sessionCloseMethod } from './methods/session-close.js'
import { sessionDeleteMethod } from './methods/session-delete.js'
import { sessionForkMethod } from './methods/session-fork.js'
import { sessionListMethod } from './methods/session-list.js'
import { sessionLoadMethod } from './methods/session-load.js'
import { sessionNewMethod } from './methods/session-new.js'
import { sessionPromptMethod } from './methods/session-prompt.js'
import { sessionResumeMethod } from './methods/session-resume.js'
import { sessionSetConfigOptionMethod } from './methods/session-set-config-option.js'
import { sessionSetModeMethod } from './methods/session-set-mode.js'
import { AcpServer, type AcpServerConfig } from './server.js'

/** Registers methods on `server` for as long as the calling plugin lives (one cordis listener: each costs). */
function registerAll(ctx: Context, server: AcpServer, methods: readonly AcpMethod[]): void {
  const unregister = methods.map((method) => server.register(method))
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
    registerAll(ctx, server, [
      initializeMethod(config.agentInfo),
      sessionNewMethod,
      sessionLoadMethod,
      sessionResumeMethod,
      sessionListMethod,
      sessionCloseMethod,
      sessionDeleteMethod,
      sessionPromptMethod,
      sessionCancelMethod,
      sessionSetConfigOptionMethod,
      sessionSetModeMethod,
    ])
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
    registerAll(ctx, ctx.acp, [sessionForkMethod])
  },
}
