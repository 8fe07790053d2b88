import type { CancellationToken, Disposable } from 'vscode-jsonrpc'
import type { AgentService } from '../agent/service.js'
import type { ClientBridge } from '../agent/types.js'
import type { NdjsonConnection, WireId } from '../jsonrpc/index.js'
import type { Session, SessionEvent, SessionStore, SessionUpdateNotification } from '../session/index.js'
import { connectionParts, seatAfter } from './attach/attach-seat.js'
import type { Seat } from './attach/seat.js'
import type { SessionAudience } from './attach/session-audience.js'
import { type TurnState, turnStateOf } from './attach/turn-state.js'
import type { AgentCapabilities } from './capabilities.js'
import {
  type ClientRequestSender,
  createClientBridge,
  type PermissionTarget,
} from './client/client-bridge.js'
import type { ClientState } from './client-state.js'
import type { AgentSetup } from './setup-port.js'
import { ClientView } from './views/client-view.js'
import type { EarlyReplay, ShownHead } from './views/replay/shown-head.js'
import { splicedLine } from './views/replay/stored-line-splice.js'
import { openSubagentChannel } from './views/subagent-view.js'
import type { ViewCall } from './views/view-call.js'

/** What a method handler may use for one call. */
export interface CallContext extends ViewCall {
  /** The process's set-up: auth methods, stored keys, MCP servers offered to every session. */
  readonly setup: AgentSetup
  /** Aborts when the client cancels this request with `$/cancel_request`; never for a notification. */
  readonly signal: AbortSignal
  /** The JSON-RPC id of this request on the client's wire; undefined for a notification. */
  readonly requestId?: WireId | undefined
  /**
   * The head of this request's `session/load` of `sessionId` that the process sent before its
   * server was built (see shown-head.ts), once; undefined for any other call.
   */
  takeEarlyReplay(sessionId: string): ShownHead | undefined
  /** What the client said in `initialize`; undefined until `initialize` succeeded. */
  readonly client: ClientState | undefined
  /** Records the client's `initialize` (only `initialize` calls this). */
  setClient(state: ClientState): void
  /** The capabilities of every registered method. */
  capabilities(): AgentCapabilities
  /** Sends the client-side notification `method` (not a session update) to this connection; never rejects. */
  notifyClient(method: string, params: unknown): void
  /**
   * Runs `task` once this call settled: after its response and every `afterResponse` task, or
   * after its error.
   */
  afterSettled(task: () => void): void
  /**
   * Editor-side services for tools of `sessionId`, as far as the client advertised them; its
   * permission requests are asked as `permissionTarget` says (default: on `sessionId`, about the
   * request's own tool call). Its `subagent` shows a subagent the session spawns as the view
   * decides (see `openSubagentChannel`).
   */
  clientBridge(sessionId: string, permissionTarget?: PermissionTarget): ClientBridge
  /**
   * Attaches this connection to `session`: from now on it is sent every update of the session
   * its own calls do not show (another client's prompt, a title set elsewhere), as a replay
   * projects it. `seat`: the projection that showed it the history (a load's); default: one fed
   * the whole log (the client was shown it another way).
   */
  attach(session: Session, seat?: Seat): void
  /** Detaches this connection from `sessionId`; returns how many connections stay attached. */
  detach(sessionId: string): number
  /** Whether another connection of this process has `sessionId` open. */
  sharedWithOthers(sessionId: string): boolean
  /**
   * Resolves once no model text streams on `sessionId` ahead of its event (see
   * `SessionAudience.streamPassed`): a change the caller appends then takes its own seq.
   */
  streamPassed(sessionId: string): Promise<void>
  /**
   * Asks the process that runs `sessionId`'s open turn (another process on the store) to cancel
   * it, as if its own client had; false when no turn of another process is open or the store has
   * no board.
   */
  cancelElsewhere(sessionId: string): boolean
  /** Where `session`'s turn stands (running, waiting on a question, idle and how it ended). */
  turnState(session: Session): TurnState
  /** A chunk this call's turn streams before its event `seq` is appended, for the other attached. */
  streamToOthers(update: SessionUpdateNotification, seq: number): void
  /**
   * Runs `wait` (this call's prompt waiting in line) with this connection shown what the session's
   * other turns append meanwhile, as any attached connection is: it writes nothing yet.
   */
  whileWaiting<T>(sessionId: string, wait: () => Promise<T>): Promise<T>
}

/** What the calls of one connection share; made once per connection. */
export interface CallScope {
  readonly sessions: SessionStore
  readonly agent: AgentService
  readonly setup: AgentSetup
  /** The connections of this process attached to each session. */
  readonly audience: SessionAudience
  /** Set by `initialize` (or by an `initialize` answered before the connection existed). */
  client: ClientState | undefined
  /** Made with {@link client}, anew at each `initialize`. */
  view: ClientView
  /** What an early load sent before the connection existed, until its request takes it. */
  earlyReplay: EarlyReplay | undefined
  readonly wire: NdjsonConnection
  /** Our requests to the client, through `wire`. */
  readonly send: ClientRequestSender
  capabilities(): AgentCapabilities
  warn(message: string): void
}

const NEVER_ABORTED = new AbortController().signal
const NO_TASKS: ReadonlyArray<() => void> = []

/**
 * One method call. Its `signal` is made on first use (most calls never look at it): it aborts
 * when the request's cancellation token fires, at once if it already has. Notifications, which
 * cannot be cancelled, get a signal that never aborts. `dispose()` ends the token subscription.
 */
export class Call implements CallContext {
  readonly sessions: SessionStore
  readonly agent: AgentService
  readonly setup: AgentSetup
  private controller: AbortController | undefined
  private subscription: Disposable | undefined
  private afterTasks: Array<() => void> | undefined
  private settledTasks: Array<() => void> | undefined

  constructor(
    private readonly scope: CallScope,
    private readonly token: CancellationToken | undefined,
    readonly requestId?: WireId,
  ) {
    this.sessions = scope.sessions
    this.agent = scope.agent
    this.setup = scope.setup
  }

  takeEarlyReplay(sessionId: string): ShownHead | undefined {
    const early = this.scope.earlyReplay
    if (early === undefined || early.requestId !== this.requestId || early.sessionId !== sessionId)
      return undefined
    this.scope.earlyReplay = undefined
    return early.head
  }

  get signal(): AbortSignal {
    if (this.controller) return this.controller.signal
    if (!this.token) return NEVER_ABORTED
    const controller = new AbortController()
    this.controller = controller
    if (this.token.isCancellationRequested) controller.abort()
    else this.subscription = this.token.onCancellationRequested(() => controller.abort())
    return controller.signal
  }

  get client(): ClientState | undefined {
    return this.scope.client
  }

  get view(): ClientView {
    return this.scope.view
  }

  setClient(state: ClientState): void {
    this.scope.client = state
    this.scope.view = new ClientView(state)
  }

  capabilities(): AgentCapabilities {
    return this.scope.capabilities()
  }

  // Straight to the wire, not refused once the input ended: a load or prompt still running after
  // stdin EOF streams its updates before its response.
  notify(notification: SessionUpdateNotification, from?: SessionEvent): Promise<void> {
    let sent = Promise.resolve()
    for (const update of this.scope.view.render(notification)) {
      const line = from && splicedLine({ jsonrpc: '2.0', method: 'session/update', params: update }, from)
      sent = this.scope.wire.notify('session/update', update, line).catch((error: Error) => {
        this.scope.warn(`session/update not sent: ${error.message}`)
      })
    }
    return sent
  }

  afterResponse(task: () => void): void {
    this.afterTasks ??= []
    this.afterTasks.push(task)
  }

  afterSettled(task: () => void): void {
    this.settledTasks ??= []
    this.settledTasks.push(task)
  }

  notifyClient(method: string, params: unknown): void {
    this.scope.wire.notify(method, params).catch((error: Error) => {
      this.scope.warn(`${method} not sent: ${error.message}`)
    })
  }

  clientBridge(sessionId: string, permissionTarget?: PermissionTarget): ClientBridge {
    const bridge = createClientBridge(
      // A question other attached clients can answer goes to them too (the first answer settles it).
      (method, params, signal) =>
        this.scope.audience.ask(this.scope, { method, params, signal }, this.scope.send),
      this.scope.client,
      sessionId,
      {
        permissionTarget,
        // A URL elicitation's completion goes to every client asked it (see `SessionAudience`).
        notify: async (method, params) =>
          this.scope.audience.completeElicitation(params.elicitationId, () =>
            this.scope.wire.notify(method, params).catch((error: Error) => {
              this.scope.warn(`${method} not sent: ${error.message}`)
            }),
          ),
      },
    )
    return { ...bridge, subagent: (link) => openSubagentChannel(this, link) }
  }

  attach(session: Session, seat?: Seat): void {
    this.scope.audience.attach(session.id, this.scope, {
      ...connectionParts(this, this.scope),
      ...(seat ?? seatAfter(this, session)),
    })
  }

  detach(sessionId: string): number {
    return this.scope.audience.detach(sessionId, this.scope)
  }

  sharedWithOthers(sessionId: string): boolean {
    return this.scope.audience.hasOthers(sessionId, this.scope)
  }

  streamPassed(sessionId: string): Promise<void> {
    return this.scope.audience.streamPassed(sessionId)
  }

  cancelElsewhere(sessionId: string): boolean {
    return this.scope.audience.cancelElsewhere(sessionId)
  }

  turnState(session: Session): TurnState {
    return turnStateOf(session, this.agent.isRunning(session.id), this.scope.audience.waiting(session.id))
  }

  streamToOthers(update: SessionUpdateNotification, seq: number): void {
    this.scope.audience.streamed(update.sessionId, this.scope, update, seq)
  }

  whileWaiting<T>(_sessionId: string, wait: () => Promise<T>): Promise<T> {
    return this.scope.audience.notWriting(wait)
  }

  /** What `afterResponse`, then `afterSettled`, collected (emptied). */
  takeAfterResponse(): ReadonlyArray<() => void> {
    const tasks = [...(this.afterTasks ?? NO_TASKS), ...this.takeAfterSettled()]
    this.afterTasks = undefined
    return tasks
  }

  /** What `afterSettled` collected (emptied): all that runs after a failed call. */
  takeAfterSettled(): ReadonlyArray<() => void> {
    const tasks = this.settledTasks ?? NO_TASKS
    this.settledTasks = undefined
    return tasks
  }

  dispose(): void {
    this.subscription?.dispose()
    this.subscription = undefined
  }
}
