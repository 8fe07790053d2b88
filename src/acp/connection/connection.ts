import type { Readable, Writable } from 'node:stream'
import type { Context } from 'cordis'
import type { CancellationToken } from 'vscode-jsonrpc'
import {
  type CancelNotifications,
  isPromiseLike,
  NdjsonConnection,
  type WireId,
} from '../../jsonrpc/index.js'
import { QuestionWithdrawn } from '../attach/questions/shared-questions.js'
import { Call, type CallScope } from '../call-context.js'
import type { ClientRequestSender } from '../client/client-requests.js'
import { ErrorCode, ProtocolError, toResponseError } from '../errors.js'
import type { AcpMethod, ClientState } from '../method.js'
import type { PromptParams } from '../methods/session-prompt.js'
import { ACP_AGENT_METHODS, type AcpMethodName } from '../schema/acp-methods.gen.js'
import { NO_SETUP } from '../setup-port.js'
import { v2ClientRequests } from '../v2/client-requests-v2.js'
import { PROTOCOL_V2 } from '../v2/initialize-v2.js'
import { promptOrSteerV2 } from '../v2/prompt-v2.js'
import { noteV2Request } from '../v2/protocol-choice.js'
import { inClientWords, readV2Request, V2_UNBATCHABLE, type V2Route } from '../v2/reader.js'
import { resumesSession, sendResumeState } from '../v2/resume-state-v2.js'
import { validateParams } from '../validate-params.js'
import { ClientView } from '../views/client-view.js'
import { configUpdates } from '../views/config-options.js'
import { warmLoadPath } from '../views/replay/load-warmup.js'
import type { ConnectionHost } from './connection-host.js'

/**
 * How a client cancels one of its requests: ACP's `$/cancel_request { requestId }`, and the
 * `$/cancelRequest { id }` of vscode-jsonrpc's peers.
 */
const ACP_CANCEL_NOTIFICATIONS: CancelNotifications = {
  '$/cancel_request': 'requestId',
  '$/cancelRequest': 'id',
}

export interface ConnectionOptions {
  readonly maxLineBytes?: number
  /** Sees every raw line in both directions, as on the wire (the transcript tap). */
  readonly onWireLine?: (direction: 'in' | 'out', line: string) => void
  /** The client of an `initialize` already answered on this input (early-initialize.ts). */
  readonly client?: ClientState
}

/**
 * Our requests that are cancelled on the wire (`$/cancel_request`) when the turn that waits for
 * them is cancelled: a question the user would otherwise still see. The others are not: the client
 * answers a pending `session/request_permission` with `cancelled` itself on `session/cancel` (ACP),
 * and the `fs/*` and `terminal/*` requests finish at once.
 */
const CANCELLED_ON_THE_WIRE: ReadonlySet<string> = new Set(['elicitation/create'])
const ACP_OUTBOUND_CANCEL = { method: '$/cancel_request', idParam: 'requestId' } as const
/** The others are cancelled on the wire only when taken back because another client answered. */
const WITHDRAWAL_CANCEL = {
  ...ACP_OUTBOUND_CANCEL,
  when: (reason: unknown) => reason instanceof QuestionWithdrawn,
}

/** How long a connection is idle after `initialize` before it warms the load path up. */
const WARM_UP_DELAY_MS = 50

/**
 * One client connection: dispatches requests and notifications to the methods registered on
 * `ctx.acp`, maps every failure to exactly one JSON-RPC error response, and knows what the client
 * advertised in `initialize`.
 */
export class AcpConnection {
  private readonly wire: NdjsonConnection
  /** Calls whose handler has not finished, and who waits for that count to reach zero. */
  private running = 0
  private idleWaiters: Array<() => void> = []
  private readonly logger
  private readonly scope: CallScope
  /** Resolves when the input ended (EOF) or failed. */
  readonly closed: Promise<void>
  /** Resolves when the output failed or closed (EPIPE: the client is gone). */
  readonly outputClosed: Promise<void>
  private outputGone = false
  private warmedUp = false

  constructor(
    ctx: Context,
    private readonly server: ConnectionHost,
    input: Readable,
    output: Writable,
    options: ConnectionOptions,
  ) {
    this.logger = ctx.logger('acp')
    const wire = new NdjsonConnection(input, output, {
      ...(options.maxLineBytes !== undefined && { maxLineBytes: options.maxLineBytes }),
      ...(options.onWireLine && { onWireLine: options.onWireLine }),
      log: (message: string) => this.logger.warn(message),
      cancelNotifications: ACP_CANCEL_NOTIFICATIONS,
      batches: {
        accepted: () => this.scope.client?.protocolVersion === PROTOCOL_V2,
        unbatchable: V2_UNBATCHABLE,
      },
      inbound: {
        request: (method, params, token, id) => this.dispatch(method, params, token, false, id),
        notification: (method, params) => {
          const done = this.dispatch(method, params, undefined, true)
          if (isPromiseLike(done)) done.then(undefined, () => undefined)
        },
        // A method that does not turn its signal into its own result answers -32800 when cancelled.
        cancelledAnswer: (method) =>
          this.server.method(method)?.handlesCancellation ? undefined : ProtocolError.cancelled(),
      },
    })
    this.wire = wire
    const request: ClientRequestSender = (method, params, signal) =>
      wire.request(
        method,
        params,
        signal,
        CANCELLED_ON_THE_WIRE.has(method) ? ACP_OUTBOUND_CANCEL : WITHDRAWAL_CANCEL,
      )
    const v2Request = v2ClientRequests(request, (sessionId, update) => this.notifyV2(sessionId, update))
    this.scope = {
      sessions: server.services.sessions,
      agent: server.services.agent,
      setup: server.config.setup ?? NO_SETUP,
      audience: server.audience,
      client: options.client,
      view: new ClientView(options.client),
      wire,
      send: (method, params, signal) =>
        (this.scope.client?.protocolVersion === PROTOCOL_V2 ? v2Request : request)(method, params, signal),
      capabilities: () => server.capabilities(),
      warn: (message) => this.logger.warn(message),
    }
    this.closed = wire.closed
    const scope = this.scope
    const detach = () => scope.audience.detachAll(scope)
    void wire.closed.then(detach, detach)
    void wire.outputClosed.then(detach, detach)
    this.outputClosed = wire.outputClosed.then(() => {
      this.outputGone = true
    })
    if (options.client !== undefined) this.warmUpWhenIdle()
  }

  /**
   * Once `initialize` was answered, after {@link WARM_UP_DELAY_MS} with no call running: runs the
   * load path once without sending anything (`warmLoadPath`), so a new process's first
   * `session/load` is not slowed by compiling it. A client that sends its requests at once is not
   * competed with: the warm-up waits until it is idle again, and stops reading when a call comes in.
   * Not counted as running: `settle` does not wait for it, and its timer keeps no process alive.
   */
  private warmUpWhenIdle(): void {
    if (this.warmedUp) return
    this.warmedUp = true
    const busy = () => this.running > 0 || this.wire.pendingRequests() > 0
    const later = () => setTimeout(run, WARM_UP_DELAY_MS).unref()
    const run = (): void => {
      if (this.outputGone) return
      if (busy()) this.idleWaiters.push(later)
      else void warmLoadPath(this.scope.sessions, configUpdates(this.scope.agent), busy)
    }
    later()
  }

  /**
   * Waits until every request read so far has its response written (including requests still
   * queued in the dispatcher) and every notification being handled has finished. Once the
   * output is gone, responses can no longer be written: then it waits for running handlers only.
   */
  async settle(): Promise<void> {
    for (;;) {
      if (this.running > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve))
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

  private finished(): void {
    if (--this.running > 0 || this.idleWaiters.length === 0) return
    const waiters = this.idleWaiters
    this.idleWaiters = []
    for (const resolve of waiters) resolve()
  }

  /**
   * Runs one request or notification: the handler's value when it answered synchronously (so the
   * dispatcher answers at once), else a promise of it. A request's failure is thrown (or rejected)
   * as the `ResponseError` to answer with; a notification's is logged and never thrown.
   */
  private dispatch(
    name: string,
    params: unknown,
    token: CancellationToken | undefined,
    notification: boolean,
    id?: WireId,
  ): unknown {
    const call = new Call(this.scope, token, id)
    this.running++
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
        route === undefined ? this.handle(method, value, call) : this.handleV2(route, method, value, call)
      const result = isPromiseLike(checked) ? Promise.resolve(checked).then(handle) : handle(checked)
      if (!isPromiseLike(result)) {
        this.runAfterResponse(call.takeAfterResponse())
        if (this.scope.client !== undefined) this.warmUpWhenIdle()
        return result
      }
      settlesLater = true
      const answered = route ? inClientWords(result, route) : result
      return this.settleCall(name, answered, call, notification)
    } catch (error) {
      return this.failed(name, route ? route.failure(error) : error, notification)
    } finally {
      if (!settlesLater) this.release(call)
    }
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

  /**
   * A v2 request read into its v1 call: `session/prompt` runs ACP v2's prompt lifecycle (its turn
   * counted as running until it ends), or steers the turn running on the session; the others
   * answer in v2's words.
   */
  private handleV2(route: V2Route, method: AcpMethod, params: unknown, call: Call): unknown {
    if (route.method === 'session/prompt') {
      const prompt = params as PromptParams
      const send = (update: Record<string, unknown>) => this.notifyV2(prompt.sessionId, update)
      const track = (turn: Promise<unknown>) => {
        this.running++
        void turn.finally(() => this.finished())
      }
      return promptOrSteerV2(prompt, call, send, track, (turn) =>
        this.scope.audience.writing(prompt.sessionId, this.scope, turn),
      )
    }
    const result = this.handle(method, params, call)
    const notify = (sessionId: string, update: Record<string, unknown>) => this.notifyV2(sessionId, update)
    if (resumesSession(route.method))
      return Promise.resolve(result).then(async (value) => {
        await sendResumeState(params, call, notify)
        return route.answer(value)
      })
    return isPromiseLike(result) ? Promise.resolve(result).then(route.answer) : route.answer(result)
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
        this.runAfterResponse(call.takeAfterResponse())
        if (this.scope.client !== undefined) this.warmUpWhenIdle()
        this.release(call)
        return value
      },
      (error: unknown) => {
        this.release(call)
        return this.failed(name, error, notification)
      },
    )
  }

  private release(call: Call): void {
    call.dispose()
    this.finished()
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

  /**
   * Runs what a handler asked to send after its answer: once the dispatcher has written the
   * response (it does so in the microtasks after the handler settles; an immediate runs after
   * them), counted as running so `settle` waits for it.
   */
  private runAfterResponse(tasks: ReadonlyArray<() => void>): void {
    if (tasks.length === 0) return
    this.running++
    setImmediate(() => {
      try {
        for (const task of tasks) task()
      } catch (error) {
        this.logger.warn(`after response: ${(error as Error).message}`)
      } finally {
        this.finished()
      }
    })
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
