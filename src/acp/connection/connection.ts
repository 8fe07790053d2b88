import type { Context } from 'cordis'
import type { CancellationToken } from 'vscode-jsonrpc'
import { isPromiseLike, type NdjsonConnection, type WireId } from '../../jsonrpc/index.js'
import { Call, type CallScope } from '../call-context.js'
import { ErrorCode, ProtocolError, toResponseError } from '../errors.js'
import type { AcpMethod, ClientState } from '../method.js'
import { ACP_AGENT_METHODS, type AcpMethodName } from '../schema/acp-methods.gen.js'
import { NO_SETUP } from '../setup-port.js'
import { v2ClientRequests } from '../v2/client-requests-v2.js'
import { PROTOCOL_V2 } from '../v2/initialize-v2.js'
import { noteV2Request } from '../v2/protocol-choice.js'
import { inClientWords, readV2Request, type V2Route } from '../v2/reader.js'
import { validateParams } from '../validate-params.js'
import { ClientView } from '../views/client-view.js'
import type { EarlyReplay } from '../views/replay/shown-head.js'
import type { ConnectionHost } from './connection-host.js'
import { type ConnectionStreams, clientRequestSender, openWire } from './connection-wire.js'
import { LoadWarmUp } from './load-warm-up.js'
import { RunningCalls } from './running-calls.js'
import { V2Calls } from './v2-calls.js'

export type { ConnectionOptions, ConnectionStreams } from './connection-wire.js'

/** One request or notification read from the wire. */
interface Incoming {
  readonly name: string
  readonly params: unknown
  readonly notification: boolean
  readonly token?: CancellationToken | undefined
  readonly id?: WireId | undefined
}

/**
 * One client connection: dispatches requests and notifications to the methods registered on
 * `ctx.acp`, maps every failure to exactly one JSON-RPC error response, and knows what the client
 * advertised in `initialize`.
 */
export class AcpConnection {
  private readonly wire: NdjsonConnection
  private readonly calls = new RunningCalls()
  private readonly logger
  private readonly scope: CallScope
  private readonly v2: V2Calls
  private readonly warmUp: LoadWarmUp
  /** Resolves when the input ended (EOF) or failed. */
  readonly closed: Promise<void>
  /** Resolves when the output failed or closed (EPIPE: the client is gone). */
  readonly outputClosed: Promise<void>
  private outputGone = false

  constructor(
    ctx: Context,
    private readonly server: ConnectionHost,
    streams: ConnectionStreams,
  ) {
    this.logger = ctx.logger('acp')
    this.wire = openWire(streams, {
      log: (message: string) => this.logger.warn(message),
      batched: () => this.scope.client?.protocolVersion === PROTOCOL_V2,
      inbound: {
        request: (name, params, token, id) => this.dispatch({ name, params, token, id, notification: false }),
        notification: (name, params) => {
          const done = this.dispatch({ name, params, notification: true })
          if (isPromiseLike(done)) done.then(undefined, () => undefined)
        },
        // A method that does not turn its signal into its own result answers -32800 when cancelled.
        cancelledAnswer: (method) =>
          this.server.method(method)?.handlesCancellation ? undefined : ProtocolError.cancelled(),
      },
    })
    this.scope = this.callScope(streams.client, streams.earlyReplay)
    this.v2 = this.v2Calls()
    const { wire, scope, calls } = this
    this.warmUp = new LoadWarmUp({ calls, wire, scope, outputGone: () => this.outputGone })
    this.closed = wire.closed
    const detach = () => scope.audience.detachAll(scope)
    void wire.closed.then(detach, detach)
    void wire.outputClosed.then(detach, detach)
    this.outputClosed = wire.outputClosed.then(() => {
      this.outputGone = true
    })
    if (streams.client !== undefined) this.warmUp.startWhenIdle()
  }

  /** What every call of this connection reaches the services, the client and the audience by. */
  private callScope(client: ClientState | undefined, earlyReplay: EarlyReplay | undefined): CallScope {
    const { server, wire } = this
    const request = clientRequestSender(wire)
    const v2Request = v2ClientRequests(request, (sessionId, update) => this.notifyV2(sessionId, update))
    return {
      sessions: server.services.sessions,
      agent: server.services.agent,
      setup: server.config.setup ?? NO_SETUP,
      audience: server.audience,
      client,
      view: new ClientView(client),
      earlyReplay,
      wire,
      send: (method, params, signal) =>
        (this.scope.client?.protocolVersion === PROTOCOL_V2 ? v2Request : request)(method, params, signal),
      capabilities: () => server.capabilities(),
      warn: (message) => this.logger.warn(message),
    }
  }

  private v2Calls(): V2Calls {
    return new V2Calls({
      handle: (method, params, call) => this.handle(method, params, call),
      notifyV2: (sessionId, update) => this.notifyV2(sessionId, update),
      track: (turn) => this.calls.track(turn),
      writing: (sessionId, turn) => this.scope.audience.writing(sessionId, this.scope, turn),
    })
  }

  /**
   * Waits until every request read so far has its response written (including requests still
   * queued in the dispatcher) and every notification being handled has finished. Once the
   * output is gone, responses can no longer be written: then it waits for running handlers only.
   */
  async settle(): Promise<void> {
    for (;;) {
      if (this.calls.busy) await new Promise<void>((resolve) => this.calls.whenIdle(resolve))
      else if (!this.outputGone && this.wire.pendingRequests() > 0)
        await new Promise((resolve) => setImmediate(resolve))
      else return
    }
  }

  /** Resolves when everything written so far has been handed to the output. */
  drain(): Promise<void> {
    return this.wire.drain()
  }

  dispose(): void {
    this.wire.dispose()
  }

  /**
   * Runs one request or notification: the handler's value when it answered synchronously (so the
   * dispatcher answers at once), else a promise of it. A request's failure is thrown (or rejected)
   * as the `ResponseError` to answer with; a notification's is logged and never thrown.
   */
  private dispatch(incoming: Incoming): unknown {
    const { name, params, notification } = incoming
    const call = new Call(this.scope, incoming.token, incoming.id)
    this.calls.start()
    let settlesLater = false
    let route: V2Route | undefined
    try {
      const client = this.scope.client
      if (client?.protocolVersion === PROTOCOL_V2 && !notification) noteV2Request(client, name)
      route = client?.protocolVersion === PROTOCOL_V2 ? readV2Request(name, params) : undefined
      const target = route?.method ?? name
      const acpMethod = isAcpMethod(target) ? target : undefined
      const method = this.methodFor(target, acpMethod, notification)
      if (!method) return undefined
      const checked = acpMethod ? validateParams(acpMethod, route?.params ?? params) : params
      const handle = (value: unknown) =>
        route === undefined ? this.handle(method, value, call) : this.v2.handle(route, method, value, call)
      const result = isPromiseLike(checked) ? Promise.resolve(checked).then(handle) : handle(checked)
      if (!isPromiseLike(result)) {
        this.answered(call)
        return result
      }
      settlesLater = true
      const answered = route ? inClientWords(result, route) : result
      return this.settleCall(name, answered, call, notification)
    } catch (error) {
      this.settledByFailure(call)
      return this.failed(name, route ? route.failure(error) : error, notification)
    } finally {
      if (!settlesLater) this.release(call)
    }
  }

  /** After a call's answer: what it asked to send then, and the warm-up once initialized. */
  private answered(call: Call): void {
    this.calls.runAfterResponse(call.takeAfterResponse(), (message) => this.logger.warn(message))
    if (this.scope.client !== undefined) this.warmUp.startWhenIdle()
  }

  /** After a call's error: what it asked to run once settled, whatever the outcome. */
  private settledByFailure(call: Call): void {
    this.calls.runAfterResponse(call.takeAfterSettled(), (message) => this.logger.warn(message))
  }

  /**
   * Runs the handler; a call that writes a session and shows what it writes (a prompt, a title or
   * option set) does so while the session's other attached connections are sent it as updates.
   */
  private handle(method: AcpMethod, params: unknown, call: Call): unknown {
    const sessionId = WRITES_AND_SHOWS.has(method.name) ? sessionIdOf(params) : undefined
    if (sessionId === undefined) return method.handle(params, call)
    return this.scope.audience.writing(sessionId, this.scope, async () => method.handle(params, call))
  }

  /** Sends a v2 `session/update` of `sessionId` as it is (already in v2's words); never rejects. */
  private notifyV2(sessionId: string, update: Record<string, unknown>): Promise<void> {
    return this.wire.notify('session/update', { sessionId, update }).catch((error: Error) => {
      this.logger.warn(`session/update not sent: ${error.message}`)
    })
  }

  /** The method `name` names, or undefined for an unknown notification; throws for a request. */
  private methodFor(name: string, acpMethod: AcpMethodName | undefined, notification: boolean) {
    const method = this.server.method(name)
    const isNotification = acpMethod
      ? ACP_AGENT_METHODS[acpMethod].notification
      : method?.notification === true
    if (!method || isNotification !== notification) {
      if (notification) {
        this.logger.debug(`ignored notification ${name}`)
        return undefined
      }
      throw ProtocolError.methodNotFound(name)
    }
    if (!method.beforeInitialize && this.scope.client === undefined) {
      throw new ProtocolError(ErrorCode.InvalidRequest, `${name}: call initialize first`)
    }
    return method
  }

  private settleCall(
    name: string,
    result: PromiseLike<unknown>,
    call: Call,
    notification: boolean,
  ): PromiseLike<unknown> {
    return result.then(
      (value) => {
        this.answered(call)
        this.release(call)
        return value
      },
      (error: unknown) => {
        this.release(call)
        this.settledByFailure(call)
        return this.failed(name, error, notification)
      },
    )
  }

  private release(call: Call): void {
    call.dispose()
    this.calls.finish()
  }

  /** A request's failure as the `ResponseError` to throw; a notification's is logged. */
  private failed(name: string, error: unknown, notification: boolean): undefined {
    const response = toResponseError(error, (message) => this.logger.error(message))
    if (notification) {
      this.logger.warn(`notification ${name} failed: ${response.message}`)
      return undefined
    }
    throw response
  }
}

/** Methods that send their caller the updates of what they append to `params.sessionId`. */
const WRITES_AND_SHOWS: ReadonlySet<string> = new Set([
  'session/prompt',
  '_session/goal',
  'session/set_mode',
  'session/set_config_option',
  'session/set_title',
])

function sessionIdOf(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null || !('sessionId' in params)) return undefined
  return typeof params.sessionId === 'string' ? params.sessionId : undefined
}

function isAcpMethod(name: string): name is AcpMethodName {
  return Object.hasOwn(ACP_AGENT_METHODS, name)
}
