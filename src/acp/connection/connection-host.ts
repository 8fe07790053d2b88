import type { SessionAudience } from '../attach/session-audience.js'
import type { CallContext } from '../call-context.js'
import type { AgentCapabilities } from '../capabilities.js'
import type { AcpMethod } from '../method.js'
import type { AgentSetup } from '../setup-port.js'

/**
 * What a connection uses of the server that made it (`AcpServer`), in its own file so that the
 * two do not import each other.
 */
export interface ConnectionHost {
  /** The services every call gets, resolved once. */
  readonly services: Pick<CallContext, 'sessions' | 'agent'>
  readonly config: { readonly setup?: AgentSetup }
  /** The connections of this process attached to each session. */
  readonly audience: SessionAudience
  /** The registered method `name`, or undefined. */
  method(name: string): AcpMethod | undefined
  capabilities(): AgentCapabilities
}
