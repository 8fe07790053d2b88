import type { AgentService } from '../agent/service.js'
import type { ClientBridge, SubagentLink, SubagentView } from '../agent/types.js'
import type { SessionStore, SessionUpdateNotification } from '../session/index.js'
import type { AgentCapabilities } from './capabilities.js'

/** What the client said about itself in `initialize`. */
export interface ClientState {
  readonly protocolVersion: number
  readonly capabilities: Readonly<Record<string, unknown>>
  readonly info?: Readonly<Record<string, unknown>>
}

/** What a method handler may use for one call. */
export interface MethodCall {
  /** `ctx.sessions`, resolved once when the server started (cordis service reads are slow). */
  readonly sessions: SessionStore
  /** `ctx.agent`, resolved once when the server started. */
  readonly agent: AgentService
  /** Aborts when the client cancels this request with `$/cancel_request`. */
  readonly signal: AbortSignal
  /** Undefined until `initialize` succeeded. */
  readonly client: ClientState | undefined
  /** Records the client's `initialize` (only `initialize` calls this). */
  setClient(state: ClientState): void
  /** The capabilities of every registered method. */
  capabilities(): AgentCapabilities
  /** Sends one `session/update` notification, in order with everything else written. */
  notify(update: SessionUpdateNotification): void
  /** Editor-side services for tools of `sessionId`, as far as the client advertised them. */
  clientBridge(sessionId: string): ClientBridge
  /** How a subagent spawned by a turn is shown to this client (see `openSubagentView`). */
  openSubagent(link: SubagentLink): SubagentView
}

/**
 * One ACP method: registered on `ctx.acp`, dispatched by name, advertised through `advertise`.
 * Handlers validate their params and throw `ProtocolError`s or `SessionError`s.
 */
export interface AcpMethod {
  readonly name: string
  /** Notifications get no response. */
  readonly notification?: boolean
  /** Callable before `initialize` (only `initialize` itself). */
  readonly beforeInitialize?: boolean
  /** The handler turns `signal` into its own result; otherwise a cancelled request answers -32800. */
  readonly handlesCancellation?: boolean
  /** Adds what this method needs advertised to `initialize`'s agentCapabilities. */
  readonly advertise?: (capabilities: AgentCapabilities) => void
  handle(params: unknown, call: MethodCall): unknown
}
