import type { Readable, Writable } from 'node:stream'
import type { Context } from 'cordis'
import type { CancellationToken, MessageConnection } from 'vscode-jsonrpc'
import type { SessionUpdateNotification } from '../session/index.js'
import { createClientBridge } from './client-bridge.js'
import { ErrorCode, ProtocolError, toResponseError } from './errors.js'
import type { ClientState, MethodCall } from './method.js'
import type { AcpServer } from './server.js'
import { createNdjsonConnection } from './wire/index.js'

export interface ConnectionOptions {
  readonly maxLineBytes?: number
  /** Sees every raw line in both directions, as on the wire (the transcript tap). */
  readonly onWireLine?: (direction: 'in' | 'out', line: string) => void
}

/**
 * One client connection: dispatches requests and notifications to the methods registered on
 * `ctx.acp`, maps every failure to exactly one JSON-RPC error response, and knows what the client
 * advertised in `initialize`.
 */
export class AcpConnection {
  private readonly rpc: MessageConnection
  private readonly drainOutput: () => Promise<void>
  private readonly pendingRequests: () => number
  private client: ClientState | undefined
  private readonly inFlight = new Set<Promise<unknown>>()
  private readonly logger
  /** Resolves when the input ended (EOF) or failed. */
  readonly closed: Promise<void>

  constructor(
    private readonly ctx: Context,
    private readonly server: AcpServer,
    input: Readable,
    output: Writable,
    options: ConnectionOptions,
  ) {
    this.logger = ctx.logger('acp')
    const wire = createNdjsonConnection(input, output, {
      ...(options.maxLineBytes !== undefined && { maxLineBytes: options.maxLineBytes }),
      ...(options.onWireLine && { onWireLine: options.onWireLine }),
      log: (message: string) => this.logger.warn(message),
    })
    this.rpc = wire.connection
    this.drainOutput = wire.drain
    this.pendingRequests = wire.pendingRequests
    this.closed = wire.closed
    this.rpc.onRequest((method, params, token) => this.track(this.dispatch(method, params, token, false)))
    this.rpc.onNotification((method, params) => {
      this.track(this.dispatch(method, params, undefined, true)).catch(() => undefined)
    })
    this.rpc.onError(([error]) => this.logger.warn(`connection error: ${error.message}`))
    this.rpc.listen()
  }

  /**
   * Waits until every request read so far has its response written (including requests still
   * queued in the JSON-RPC engine) and every notification being handled has finished.
   */
  async settle(): Promise<void> {
    for (;;) {
      if (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight])
      else if (this.pendingRequests() > 0) await new Promise((resolve) => setImmediate(resolve))
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

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work)
    const untrack = () => this.inFlight.delete(work)
    work.then(untrack, untrack)
    return work
  }

  private async dispatch(
    name: string,
    params: unknown,
    token: CancellationToken | undefined,
    notification: boolean,
  ): Promise<unknown> {
    const controller = new AbortController()
    const subscription = token?.onCancellationRequested(() => controller.abort())
    try {
      const method = this.server.method(name)
      if (!method || (method.notification === true) !== notification) {
        if (notification) {
          this.logger.debug(`ignored notification ${name}`)
          return undefined
        }
        throw ProtocolError.methodNotFound(name)
      }
      if (!method.beforeInitialize && this.client === undefined) {
        throw new ProtocolError(ErrorCode.InvalidRequest, `${name}: call initialize first`)
      }
      const result = Promise.resolve(method.handle(params, this.call(controller.signal)))
      if (notification || method.handlesCancellation) return await result
      return await raceCancellation(result, controller.signal)
    } catch (error) {
      const response = toResponseError(error, (message) => this.logger.error(message))
      if (notification) {
        this.logger.warn(`notification ${name} failed: ${response.message}`)
        return undefined
      }
      throw response
    } finally {
      subscription?.dispose()
    }
  }

  private call(signal: AbortSignal): MethodCall {
    return {
      ctx: this.ctx,
      signal,
      client: this.client,
      setClient: (state) => {
        this.client = state
      },
      capabilities: () => this.server.capabilities(),
      notify: (update: SessionUpdateNotification) => {
        this.rpc.sendNotification('session/update', update).catch((error: Error) => {
          this.logger.warn(`session/update not sent: ${error.message}`)
        })
      },
      clientBridge: (sessionId) => createClientBridge(this.rpc, this.client, sessionId),
      log: (message) => this.logger.info(message),
    }
  }
}

function raceCancellation<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(ProtocolError.cancelled())
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(ProtocolError.cancelled())
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}
