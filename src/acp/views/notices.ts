import { noticeUpdate } from '../../agent/index.js'
import type { Session, SessionUpdateNotification } from '../../session/index.js'
import type { CallContext } from '../call-context.js'
import type { ClientState } from '../method.js'

/** True when the client advertised `clientCapabilities.session.notices` (`{}`; omitted or null: not). */
export function supportsNotices(client: ClientState | undefined): boolean {
  const value = client?.capabilities.session?.notices
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The clients (each `initialize`'s state) already told the configuration notices. */
const told = new WeakSet<ClientState>()

/**
 * The agent's configuration notices (settings this run ignores) as `notice` updates of `session`,
 * the first time a client that shows notices opens a session; nothing for any other call (the
 * notices were logged at start). They carry no `_meta.dsh.seq`: they stand for no event.
 */
export function configNoticeUpdates(call: CallContext, session: Session): SessionUpdateNotification[] {
  const client = call.client
  const notices = call.agent.configNotices
  if (notices.length === 0 || client === undefined || !supportsNotices(client) || told.has(client)) return []
  told.add(client)
  return notices.map((notice) => ({ sessionId: session.id, update: noticeUpdate(notice) }))
}
