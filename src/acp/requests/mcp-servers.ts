import { noticeUpdate } from '../../agent/index.js'
import type { McpServerConfig } from '../../agent/mcp/server-config.js'
import type { SessionNotifier } from '../../agent/mcp/server-slot.js'
import { McpSessions } from '../../agent/mcp/session-mcp.js'
import type {
  Session,
  SessionUpdateNotification as SessionNotification,
  SessionUpdate,
} from '../../session/index.js'
import type { CallContext } from '../call-context.js'
import { elicitationModes } from '../client/elicitation.js'
import { reportTrust } from '../trust/trust-view.js'
import type { WorkspaceTrustReport } from '../trust/trust-wire.js'
import { mcpServerConfigs } from './mcp-server-params.js'

/**
 * Connects `configs` for `session`, after the servers the set-up offers every session in its cwd
 * (the configuration files'; one of the request's with the same name replaces it), reporting
 * failures to this connection's client as `session/update`s (sent after the method's response):
 * `notice`s, which its view shows as agent messages to a client without `session.notices`. What the
 * set-up has to tell the user (a configuration file it ignored) follows the same way, and so does a
 * project configuration ignored because its folder is not trusted: the answer is the workspace's
 * trust report (undefined: nothing there waits for trust).
 */
export async function connectMcpServers(
  call: CallContext,
  session: Session,
  configs: readonly McpServerConfig[],
): Promise<WorkspaceTrustReport | undefined> {
  const sessionId = session.id
  requested.set(session, configs)
  const offer = await call.setup.offeredServers(session.cwd, sessionId)
  const named = new Set(configs.map((c) => c.name))
  const offered = mcpServerConfigs('configuration', offer.servers).filter((c) => !named.has(c.name))
  const told =
    offer.notice !== undefined ? noticeUpdate(offer.notice, offer.message) : textUpdate(offer.message)
  if (told !== undefined) call.afterResponse(() => void call.notify({ sessionId, update: told }))
  await call.agent.features
    .get(McpSessions)
    .connect(
      session,
      [...offered, ...configs],
      settledNotifier(call, sessionId),
      elicitationModes(call.client),
    )
  return reportTrust(call, session)
}

/**
 * Where the session's server notices go: held until this call settled, then straight to its
 * client. A server can fail before the call is answered (a command that does not exist fails at
 * once), and a client drops an update of a session it was not told of; after the answer, the
 * session's announcement comes first.
 */
function settledNotifier(call: CallContext, sessionId: string): SessionNotifier {
  let held: SessionNotification[] | undefined = []
  call.afterSettled(() => {
    const waiting = held ?? []
    held = undefined
    for (const notification of waiting) void call.notify(notification)
  })
  return (update, seq) => {
    const notification = { sessionId, update, _meta: { dsh: { seq } } }
    if (held === undefined) void call.notify(notification)
    else held.push(notification)
  }
}

/** The servers each live session's client asked for, for {@link reconnectMcpServers}. */
const requested = new WeakMap<Session, readonly McpServerConfig[]>()

/**
 * Connects `session`'s servers again, those its client asked for last and the ones the set-up
 * offers now (after a trust decision: the project's start, or stop), when this process connected
 * them before (a session only stored has none running).
 */
export async function reconnectMcpServers(call: CallContext, session: Session): Promise<void> {
  const configs = requested.get(session)
  if (configs !== undefined) await connectMcpServers(call, session, configs)
}

/** An agent message of `text`; undefined for none. */
function textUpdate(text: string | undefined): SessionUpdate | undefined {
  return text === undefined
    ? undefined
    : { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } }
}
