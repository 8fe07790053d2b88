import { PassThrough } from 'node:stream'
import { afterEach } from 'vitest'
import { type CancellationToken, ResponseError } from 'vscode-jsonrpc'
import {
  createNdjsonConnection,
  type NdjsonConnection,
  type NdjsonConnectionOptions,
} from '../../../src/jsonrpc/connection.js'
import { TestPeer } from './test-peer.js'

export interface TestServer {
  readonly connection: NdjsonConnection
  /** `connection.closed`: input EOF. */
  readonly closed: Promise<void>
  readonly peer: TestPeer
  /** Raw wire lines seen by the tap, as `in <line>` / `out <line>`. */
  readonly wire: string[]
  readonly logs: string[]
  readonly notes: unknown[]
  /** Resolves when a `wait` request with this key has started running. */
  started(key: string): Promise<void>
  /** Resolves when the cancellation token of the `wait` request with this key has fired. */
  cancelled(key: string): Promise<void>
}

class Signals {
  private readonly map = new Map<string, { promise: Promise<void>; fire: () => void }>()
  get(key: string): { promise: Promise<void>; fire: () => void } {
    let entry = this.map.get(key)
    if (!entry) {
      let fire = () => {}
      const promise = new Promise<void>((resolve) => {
        fire = resolve
      })
      entry = { promise, fire }
      this.map.set(key, entry)
    }
    return entry
  }
}

/**
 * A wire connection over PassThrough pairs with a few handlers, reading, that takes ACP's
 * `$/cancel_request { requestId }` and `$/cancelRequest { id }` as cancellations:
 * `ping` → "pong"; `echo` → its params (positional params get -32602); `_dsh/hello` → "hi"; `wait {key}` runs until
 * cancelled, then answers `{ cancelled: true }`; other methods get -32601; notification `note` is
 * recorded in `notes`.
 */
export function startTestServer(
  options: Omit<NdjsonConnectionOptions, 'onWireLine' | 'log' | 'inbound' | 'cancelNotifications'> = {},
): TestServer {
  const toServer = new PassThrough()
  const fromServer = new PassThrough()
  const wire: string[] = []
  const logs: string[] = []
  const notes: unknown[] = []
  const started = new Signals()
  const cancelled = new Signals()
  const handlers: Record<string, (params: unknown, token: CancellationToken) => unknown> = {
    ping: () => 'pong',
    echo: (params) => {
      if (Array.isArray(params)) throw new ResponseError(-32602, 'echo takes its params by name')
      return params
    },
    '_dsh/hello': () => 'hi',
    wait: (params, token) => {
      const { key } = params as { key: string }
      started.get(key).fire()
      return new Promise((resolve) => {
        token.onCancellationRequested(() => {
          cancelled.get(key).fire()
          resolve({ cancelled: true })
        })
      })
    },
  }
  const connection = createNdjsonConnection(toServer, fromServer, {
    ...options,
    cancelNotifications: { '$/cancel_request': 'requestId', '$/cancelRequest': 'id' },
    onWireLine: (dir, line) => wire.push(`${dir} ${line}`),
    log: (message) => logs.push(message),
    inbound: {
      request: (method, params, token) => {
        const handler = Object.hasOwn(handlers, method) ? handlers[method] : undefined
        if (!handler) throw new ResponseError(-32601, `Unhandled method ${method}`)
        return handler(params, token)
      },
      notification: (method, params) => {
        if (method === 'note') notes.push(params)
      },
    },
  })
  return {
    connection,
    closed: connection.closed,
    peer: new TestPeer(toServer, fromServer),
    wire,
    logs,
    notes,
    started: (key) => started.get(key).promise,
    cancelled: (key) => cancelled.get(key).promise,
  }
}

/**
 * The shared set-up of the wire tests: a `startTestServer` whose servers are disposed after each
 * test of the calling file.
 */
export function testServers(): typeof startTestServer {
  const servers: TestServer[] = []
  afterEach(() => {
    for (const server of servers.splice(0)) server.connection.dispose()
  })
  return (options) => {
    const server = startTestServer(options)
    servers.push(server)
    return server
  }
}
