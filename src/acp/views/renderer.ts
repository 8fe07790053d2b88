import type { SessionUpdateNotification, WireNotification } from '../../session/index.js'
import type { ClientFeatures } from './client-features.js'

/**
 * How one protocol version puts the canonical updates the agent and the session emit on the wire,
 * for a client with `features` (pure: the same update and features always give the same). ACP v1
 * is {@link acpV1Renderer}; another protocol version is another renderer of the same updates.
 */
export interface UpdateRenderer {
  /** The `session/update` params `notification` stands for on this client's wire: none, one or several. */
  render(notification: SessionUpdateNotification, features: ClientFeatures): WireNotification[]
}
