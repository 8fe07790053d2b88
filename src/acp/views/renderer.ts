import type { SessionUpdateNotification, WireNotification } from '../../session/index.js'
import type { ClientFeatures } from './client-features.js'

/**
 * How one protocol version puts the canonical updates the agent and the session emit on the wire,
 * for a client with `features` (pure: the same update and features always give the same). ACP v1
 * is {@link acpV1Renderer}; another protocol version is another renderer of the same updates.
 */
export interface UpdateRenderer<Out = RenderedNotification> {
  /** The `session/update` params `notification` stands for on this client's wire: none, one or several. */
  render(notification: SessionUpdateNotification, features: ClientFeatures): Out[]
}

/**
 * A v2 `session/update` variant: its fields are checked against the SDK's v2 schema by the tests
 * (the SDK's v2 types brand their open enums, which our v1-typed canonical updates cannot meet).
 */
export interface V2Update {
  readonly sessionUpdate: string
  readonly [field: string]: unknown
}

/** One `session/update`'s params on a client's wire: ACP v1's, or ACP v2's (acpV2Renderer). */
export type RenderedNotification = WireNotification | SessionUpdateNotification<V2Update>
