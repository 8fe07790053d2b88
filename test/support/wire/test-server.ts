import { PassThrough } from 'node:stream'
import { ParameterStructures, RequestType } from 'vscode-jsonrpc'
import {
  createNdjsonConnection,
  type NdjsonConnection,
  type NdjsonConnectionOptions,
} from '../../../src/protocol/wire/connection.js'
import { TestPeer } from './test-peer.js'

/** `echo {…}` answers its params; registered by name, so array params get -32602 from vscode-jsonrpc. */
export const EchoRequest = new RequestType<Record<string, unknown>, unknown, void>(
  'echo',
  ParameterStructures.byName,
)

export interface TestServer extends NdjsonConnection {
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
 * A wire connection over PassThrough pairs with a few handlers, listening:
 * `ping` → "pong"; `echo` (by name) → its params; `_dsh/hello` → "hi"; `wait {key}` runs until
 * cancelled, then answers `{ cancelled: true }`; notification `note` is recorded in `notes`.
 */
export function startTestServer(
  options: Omit<NdjsonConnectionOptions, 'onWireLine' | 'log'> = {},
): TestServer {
  const toServer = new PassThrough()
  const fromServer = new PassThrough()
  const wire: string[] = []
  const logs: string[] = []
  const notes: unknown[] = []
  const started = new Signals()
  const cancelled = new Signals()
  const ndjson = createNdjsonConnection(toServer, fromServer, {
    ...options,
    onWireLine: (dir, line) => wire.push(`${dir} ${line}`),
    log: (message) => logs.push(message),
  })
  const { connection } = ndjson
  connection.onRequest('ping', () => 'pong')
  connection.onRequest(EchoRequest, (params) => params)
  connection.onRequest('_dsh/hello', () => 'hi')
  connection.onRequest('wait', (params: { key: string }, token) => {
    started.get(params.key).fire()
    return new Promise((resolve) => {
      token.onCancellationRequested(() => {
        cancelled.get(params.key).fire()
        resolve({ cancelled: true })
      })
    })
  })
  connection.onNotification('note', (params: unknown) => {
    notes.push(params)
  })
  connection.listen()
  return {
    ...ndjson,
    peer: new TestPeer(toServer, fromServer),
    wire,
    logs,
    notes,
    started: (key) => started.get(key).promise,
    cancelled: (key) => cancelled.get(key).promise,
  }
}
