import type { Readable, Writable } from 'node:stream'
import type { Context } from 'cordis'
import type { CancellationToken, Disposable, MessageConnection, NotificationMessage } from 'vscode-jsonrpc'
import { createNdjsonConnection, isPromiseLike, type NdjsonConnection } from '../jsonrpc/index.js'
import type { SessionEvent, SessionUpdateNotification } from '../session/index.js'
import { createClientBridge } from './client/client-bridge.js'
import { ErrorCode, ProtocolError, toResponseError } from './errors.js'
import type { ClientState, MethodCall } from './method.js'
import { ACP_AGENT_METHODS, type AcpMethodName } from './schema/acp-methods.gen.js'
import type { AcpServer } from './server.js'
import { validateParams } from './validate-params.js'
import { splicedLine } from './views/stored-line-splice.js'
import { openSubagentView } from './views/subagent-view.js'

export interface ConnectionOptions {
  readonly maxLineBytes?: number
  /** Sees every raw line in both directions, as on the wire (the transcript tap). */
  readonly onWireLine?: (direction: 'in' | 'out', line: string) => void
  /** The client of an `initialize` already answered on this input (early-initialize.ts). */
  readonly client?: ClientState
}

/**
 * One client connection: dispatches requests and notifications to the methods registered on
 * `ctx.acp`, maps every failure to exactly one JSON-RPC error response, and knows what the client
 * advertised in `initialize`.
 */
export class AcpConnection {
  private readonly rpc: MessageConnection
  private readonly writer: NdjsonConnection['writer']
  private readonly drainOutput: () => Promise<void>
  private readonly pendingRequests: () => number
  private client: ClientState | undefined
  /** Calls whose handler has not finished, and who waits for that count to reach zero. */
  private running = 0
  private idleWaiters: Array<() => void> = []
  private readonly logger
  private readonly callState: CallState
  /** Resolves when the input ended (EOF) or failed. */
  readonly closed: Promise<void>
  /** Resolves when the output failed or closed (EPIPE: the client is gone). */
  readonly outputClosed: Promise<void>
  private outputGone = false

  constructor(
    ctx: Context,
    private readonly server: AcpServer,
    input: Readable,
    output: Writable,
    options: ConnectionOptions,
  ) {
    this.logger = ctx.logger('acp')
    this.client = options.client
    this.callState = this.makeCallState()
    const wire = createNdjsonConnection(input, output, {
      ...(options.maxLineBytes !== undefined && { maxLineBytes: options.maxLineBytes }),
      ...(options.onWireLine && { onWireLine: options.onWireLine }),
      log: (message: string) => this.logger.warn(message),
      inbound: {
        request: (method, params, token) => this.dispatch(method, params, token, false),
        notification: (method, params) => {
          const done = this.dispatch(method, params, undefined, true)
          if (isPromiseLike(done)) done.then(undefined, () => undefined)
        },
        independent: (method) => this.server.method(method)?.independent === true,
        // A method that does not turn its signal into its own result answers -32800 when cancelled.
        cancelledAnswer: (method) =>
          this.server.method(method)?.handlesCancellation ? undefined : ProtocolError.cancelled(),
      },
    })
    this.rpc = wire.connection
    this.writer = wire.writer
    this.drainOutput = wire.drain
    this.pendingRequests = wire.pendingRequests
    this.closed = wire.closed
    this.outputClosed = new Promise((resolve) => {
      wire.writer.onClose(() => {
        this.outputGone = true
        resolve()
      })
    })
    this.rpc.onError(([error]) => this.logger.warn(`connection error: ${error.message}`))
    this.rpc.listen()
  }

  /**
   * Waits until every request read so far has its response written (including requests still
   * queued in the JSON-RPC engine) and every notification being handled has finished. Once the
   * output is gone, responses can no longer be written: then it waits for running handlers only.
   */
  async settle(): Promise<void> {
    for (;;) {
      if (this.running > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve))
      else if (!this.outputGone && this.pendingRequests() > 0)
        await new Promise((resolve) => setImmediate(resolve))
      else return
    }
  }

  /** Resolves when everything written so far has been handed to the output. */
  drain(): Promise<void> {
    return this.drainOutput()
  }

  dispose(): void {
    this.rpc.dispose()
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
  ): unknown {
    const call = new Call(this.callState, token)
    this.running++
    let settlesLater = false
    try {
      const acpMethod = isAcpMethod(name) ? name : undefined
      const method = this.methodFor(name, acpMethod, notification)
      if (!method) return undefined
      const checked = acpMethod ? validateParams(acpMethod, params) : params
      const result = isPromiseLike(checked)
        ? Promise.resolve(checked).then((value) => method.handle(value as never, call))
        : method.handle(checked as never, call)
      if (!isPromiseLike(result)) {
        this.runAfterResponse(call.takeAfterResponse())
        return result
      }
      if (method.independent && !notification) return this.sharedAnswer(name, result)
      settlesLater = true
      return this.settleCall(name, result, call, notification)
    } catch (error) {
      return this.failed(name, error, notification)
    } finally {
      if (!settlesLater) this.release(call)
    }
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
    if (!method.beforeInitialize && this.client === undefined) {
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

  /**
   * An independent request's promise with its failure mapped to the `ResponseError` to answer: one
   * per promise its handler returned, so the requests that share an answer share this one too. An
   * independent call is not counted as running (it changes nothing; `settle` still waits for its
   * response through the pending requests) and asks for nothing after its response.
   */
  private sharedAnswer(name: string, result: PromiseLike<unknown>): PromiseLike<unknown> {
    let mapped = this.mappedAnswers.get(result)
    if (!mapped) {
      mapped = result.then(undefined, (error: unknown) => this.failed(name, error, false))
      this.mappedAnswers.set(result, mapped)
    }
    return mapped
  }

  private readonly mappedAnswers = new WeakMap<PromiseLike<unknown>, PromiseLike<unknown>>()

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
   * Runs what a handler asked to send after its answer: once the JSON-RPC engine has written the
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

  private makeCallState(): CallState {
    return {
      sessions: this.server.services.sessions,
      agent: this.server.services.agent,
      client: () => this.client,
      setClient: (state) => {
        this.client = state
      },
      capabilities: () => this.server.capabilities(),
      // Straight to the writer (vscode-jsonrpc's sendNotification throws once the input ended):
      // a load or prompt still running after stdin EOF streams its updates before its response.
      notify: (update, from) => {
        const message: NotificationMessage = { jsonrpc: '2.0', method: 'session/update', params: update }
        const line = from && splicedLine(message, from)
        return this.writer.write(message, line).catch((error: Error) => {
          this.logger.warn(`session/update not sent: ${error.message}`)
        })
      },
      clientBridge: (sessionId) => createClientBridge(this.rpc, this.client, sessionId),
      openSubagent: (link) =>
        openSubagentView(
          {
            client: this.client,
            notify: (update) => this.callState.notify(update),
            bridge: (sessionId, target) => createClientBridge(this.rpc, this.client, sessionId, target),
          },
          link,
        ),
    }
  }
}

/** What a `Call` needs from its connection: one per connection, shared by all its calls. */
interface CallState {
  readonly sessions: MethodCall['sessions']
  readonly agent: MethodCall['agent']
  client(): ClientState | undefined
  setClient(state: ClientState): void
  capabilities(): ReturnType<AcpServer['capabilities']>
  notify(update: SessionUpdateNotification, from?: SessionEvent): Promise<void>
  clientBridge(sessionId: string): ReturnType<typeof createClientBridge>
  openSubagent: MethodCall['openSubagent']
}

const NEVER_ABORTED = new AbortController().signal
const NO_TASKS: ReadonlyArray<() => void> = []

/**
 * One method call. Its `signal` is made on first use (most calls never look at it): it aborts
 * when the request's cancellation token fires, at once if it already has. Notifications, which
 * cannot be cancelled, get a signal that never aborts. `dispose()` ends the token subscription.
 */
class Call implements MethodCall {
  private controller: AbortController | undefined
  private subscription: Disposable | undefined
  private afterTasks: Array<() => void> | undefined

  constructor(
    private readonly state: CallState,
    private readonly token: CancellationToken | undefined,
  ) {}

  get signal(): AbortSignal {
    if (this.controller) return this.controller.signal
    if (!this.token) return NEVER_ABORTED
    const controller = new AbortController()
    this.controller = controller
    if (this.token.isCancellationRequested) controller.abort()
    else this.subscription = this.token.onCancellationRequested(() => controller.abort())
    return controller.signal
  }

  get sessions(): MethodCall['sessions'] {
    return this.state.sessions
  }

  get agent(): MethodCall['agent'] {
    return this.state.agent
  }

  get client(): ClientState | undefined {
    return this.state.client()
  }

  setClient(state: ClientState): void {
    this.state.setClient(state)
  }

  capabilities(): ReturnType<MethodCall['capabilities']> {
    return this.state.capabilities()
  }

  notify(update: SessionUpdateNotification, from?: SessionEvent): Promise<void> {
    return this.state.notify(update, from)
  }

  clientBridge(sessionId: string): ReturnType<MethodCall['clientBridge']> {
    return this.state.clientBridge(sessionId)
  }

  openSubagent(link: Parameters<MethodCall['openSubagent']>[0]): ReturnType<MethodCall['openSubagent']> {
    return this.state.openSubagent(link)
  }

  afterResponse(task: () => void): void {
    this.afterTasks ??= []
    this.afterTasks.push(task)
  }

  /** What `afterResponse` collected (emptied). */
  takeAfterResponse(): ReadonlyArray<() => void> {
    const tasks = this.afterTasks ?? NO_TASKS
    this.afterTasks = undefined
    return tasks
  }

  dispose(): void {
    this.subscription?.dispose()
    this.subscription = undefined
  }
}

function isAcpMethod(name: string): name is AcpMethodName {
  return Object.hasOwn(ACP_AGENT_METHODS, name)
}
