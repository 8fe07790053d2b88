import { type Notice, noticeUpdate } from '../../agent/notices/notice.js'
import { isGoalUpdate } from '../../session/projection/goal-updates.js'
import type { SessionUpdateNotification } from '../../session/projection/update-types.js'
import type { ClientState } from '../client-state.js'
import { type ClientFeatures, clientFeatures } from './client-features.js'
import type { RenderedNotification, UpdateRenderer } from './renderer.js'
import { acpV1Renderer } from './v1/renderer.js'
import { acpV2Renderer } from './v2/renderer.js'

/**
 * What one client sees: the only place that decides it, live and in a replay alike. Made from the
 * client's `initialize` (its protocol version picks the renderer, its capabilities the
 * {@link ClientFeatures}); every canonical update the agent and the session emit for this client
 * goes through {@link render}.
 */
export class ClientView {
  readonly features: ClientFeatures
  private readonly renderer: UpdateRenderer
  private configNoticesSaid = false
  /** The title this client was last sent for each session. */
  private readonly titles = new Map<string, string>()

  constructor(client: ClientState | undefined) {
    this.features = clientFeatures(client)
    this.renderer = rendererFor(client?.protocolVersion)
  }

  /** The wire `session/update` params of one canonical notification, for this client. */
  render(notification: SessionUpdateNotification): RenderedNotification[] {
    const update = notification.update
    if (update.sessionUpdate === 'session_info_update' && typeof update.title === 'string') {
      this.titles.set(notification.sessionId, update.title)
    }
    // The goal extension is offered to ACP v1 clients only: the others are sent nothing of it.
    if (!this.features.goals && isGoalUpdate(update)) return []
    return this.renderer.render(notification, this.features)
  }

  /** Whether this client was sent `title` as the session's title last: then it need not hear it again. */
  knowsTitle(sessionId: string, title: string): boolean {
    return this.titles.get(sessionId) === title
  }

  /**
   * The agent's configuration notices (settings this run ignores) as `notice` updates of
   * `sessionId`, the first time this client opens a session; nothing after. They carry no
   * `_meta.dsh.seq` (they stand for no event) and no fallback: a client that shows no notices is
   * not told (the notices were logged at start).
   */
  configNotices(sessionId: string, notices: readonly Notice[]): SessionUpdateNotification[] {
    if (this.configNoticesSaid || notices.length === 0) return []
    this.configNoticesSaid = true
    return notices.map((notice) => ({ sessionId, update: noticeUpdate(notice) }))
  }
}

/** The renderer of a protocol version: ACP v2's for a client that negotiated v2, else ACP v1's. */
function rendererFor(protocolVersion: number | undefined): UpdateRenderer {
  return protocolVersion === 2 ? acpV2Renderer : acpV1Renderer
}
