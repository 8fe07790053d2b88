import type * as v2 from '@agentclientprotocol/sdk/experimental/v2'
import type { CallContext } from './call-context.js'
import type { AcpAgentMethods, AcpMethodName } from './schema/acp-methods.gen.js'

export type { ClientState } from './client-state.js'

/**
 * An extension method: ACP reserves names that start with `_` for them; or a method of an ACP draft
 * no SDK schema has yet (`trust/apply`, the workspace-trust RFD's; `session/options`, schema 1.31's;
 * `session/attach`, `session/ready` and `session/detach`, the Remote draft's, on v2 connections). Either validates its own params.
 */
export type ExtensionMethodName =
  | `_${string}`
  | 'trust/apply'
  | 'session/options'
  | 'session/attach'
  | 'session/ready'
  | 'session/detach'

/** `initialize` answers in the version it chose (v2/protocol-choice.ts): v1's response or v2's. */
interface InitializeTypes {
  params: AcpAgentMethods['initialize']['params']
  result: AcpAgentMethods['initialize']['result'] | v2.InitializeResponse
}

/** The params and result a method's handler takes and gives: the SDK's types for ACP methods. */
export type MethodTypes<M extends AcpMethodName | ExtensionMethodName> = M extends 'initialize'
  ? InitializeTypes
  : M extends AcpMethodName
    ? AcpAgentMethods[M]
    : { params: unknown; result: unknown }

/**
 * One method: registered on `ctx.acp`, dispatched by name, advertised as capabilities.ts says. An ACP
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
  /** The handler turns `signal` into its own result; otherwise a cancelled request answers -32800. */
  readonly handlesCancellation?: boolean
  /** The result, or a promise of it. */
  handle(
    params: MethodTypes<M>['params'],
    call: CallContext,
  ): MethodTypes<M>['result'] | Promise<MethodTypes<M>['result']>
}

/** Declares a method with its types inferred from its name. */
export function defineMethod<M extends AcpMethodName | ExtensionMethodName>(
  method: AcpMethod<M>,
): AcpMethod<M> {
  return method
}
