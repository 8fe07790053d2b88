import type * as acp from '@agentclientprotocol/sdk'
import type { AgentService } from '../agent/service.js'
import type { ClientBridge, SubagentLink, SubagentView } from '../agent/types.js'
import type { SerializedJson } from '../jsonrpc/index.js'
import type { SessionEvent, SessionStore, SessionUpdateNotification } from '../session/index.js'
import type { AgentCapabilities } from './capabilities.js'
import type { AcpAgentMethods, AcpMethodName } from './schema/acp-methods.gen.js'

/** What the client said about itself in `initialize`. */
export interface ClientState {
  readonly protocolVersion: number
  readonly capabilities: acp.ClientCapabilities
  readonly info?: acp.Implementation
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
  /**
   * Sends one `session/update` notification, in order with everything else written. Resolves when
   * it was handed to the output (later when the output pushes back); never rejects. `from`: the
   * stored event the update was projected from; while its backend lends the line it was parsed
   * from (`storedLineOf`), long strings the two share are copied from the line's bytes.
   */
  notify(update: SessionUpdateNotification, from?: SessionEvent): Promise<void>
  /**
   * Runs `task` once this call's response has been written, if the call succeeds: for updates a
   * client drops when they come before the answer that tells it about the session.
   */
  afterResponse(task: () => void): void
  /** Editor-side services for tools of `sessionId`, as far as the client advertised them. */
  clientBridge(sessionId: string): ClientBridge
  /** How a subagent spawned by a turn is shown to this client (see `openSubagentView`). */
  openSubagent(link: SubagentLink): SubagentView
}

/** An extension method: ACP reserves names that start with `_` for them. */
export type ExtensionMethodName = `_${string}`

/** The params and result a method's handler takes and gives: the SDK's types for ACP methods. */
export type MethodTypes<M extends AcpMethodName | ExtensionMethodName> = M extends AcpMethodName
  ? AcpAgentMethods[M]
  : { params: unknown; result: unknown }

/**
 * One method: registered on `ctx.acp`, dispatched by name, advertised through `advertise`. An ACP
 * method's params have been checked against the official schema before `handle` runs (see
 * `validate-params.ts`); handlers check only what the schema cannot say (absolute paths, known
 * sessions) and throw `ProtocolError`s or `SessionError`s. An extension method validates its own.
 */
export interface AcpMethod<
  M extends AcpMethodName | ExtensionMethodName = AcpMethodName | ExtensionMethodName,
> {
  readonly name: M
  /** Extension methods only: a notification gets no response. ACP methods: the schema says. */
  readonly notification?: boolean
  /** Callable before `initialize` (only `initialize` itself). */
  readonly beforeInitialize?: boolean
  /**
   * The handler changes nothing a later request could observe (a pure read): the requests after
   * it may start before it settles (see `InboundDispatcher`), and nothing is run after its
   * response (`afterResponse` is not for it).
   */
  readonly independent?: boolean
  /** The handler turns `signal` into its own result; otherwise a cancelled request answers -32800. */
  readonly handlesCancellation?: boolean
  /** Adds what this method needs advertised to `initialize`'s agentCapabilities. */
  readonly advertise?: (capabilities: AgentCapabilities) => void
  /** The result, or the result serialized once for answers given many times (see `SerializedJson`). */
  handle(params: MethodTypes<M>['params'], call: MethodCall): MethodResult<M> | Promise<MethodResult<M>>
}

type MethodResult<M extends AcpMethodName | ExtensionMethodName> =
  | MethodTypes<M>['result']
  | SerializedJson<MethodTypes<M>['result']>

/** Declares a method with its types inferred from its name. */
export function defineMethod<M extends AcpMethodName | ExtensionMethodName>(
  method: AcpMethod<M>,
): AcpMethod<M> {
  return method
}
