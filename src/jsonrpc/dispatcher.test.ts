import { PassThrough } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { ResponseError, type ResponseMessage } from 'vscode-jsonrpc'
import { TestPeer } from '../../test/support/wire/test-peer.js'
import { startTestServer, type TestServer } from '../../test/support/wire/test-server.js'
import { createNdjsonConnection, type NdjsonConnection } from './connection.js'
import { InboundDispatcher, type InboundHandlers, type InboundMessage } from './dispatcher.js'

const connections: NdjsonConnection[] = []
afterEach(() => {
  for (const connection of connections.splice(0)) connection.dispose()
})

const line = (message: unknown) => `${JSON.stringify(message)}\n`
const request = (id: number, method: string, params: object = {}): InboundMessage => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
})
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** A connection whose handlers record when they start; `step` needs what `first` set up. */
function startRecording(): { wire: NdjsonConnection; peer: TestPeer; started: string[] } {
  const toServer = new PassThrough()
  const fromServer = new PassThrough()
  const started: string[] = []
  let ready = false
  const wire = createNdjsonConnection(toServer, fromServer, {
    inbound: {
      request: async (method, params) => {
        if (method === 'first') {
          started.push('first')
          await Promise.resolve()
          await Promise.resolve()
          ready = true
          return 'ok'
        }
        started.push(`step ${(params as { n: number }).n}`)
        return ready
      },
      notification: (method) => {
        started.push(`note ${method}`)
      },
    },
  })
  connections.push(wire)
  return { wire, peer: new TestPeer(toServer, fromServer), started }
}

/** A dispatcher over `handlers` that collects its responses. */
function dispatcherOver(handlers: Partial<InboundHandlers>) {
  const responses: ResponseMessage[] = []
  const logs: string[] = []
  const dispatcher = new InboundDispatcher(
    { request: () => null, notification: () => {}, ...handlers },
    (response) => responses.push(response),
    (message) => logs.push(message),
  )
  return { dispatcher, responses, logs }
}

describe('dispatching the messages of one chunk', () => {
  it('starts them in wire order, each after the microtasks of the one before, and answers each once', async () => {
    const { peer, started } = startRecording()
    peer.send(
      line(request(1, 'first')) +
        line({ jsonrpc: '2.0', method: 'hello' }) +
        [2, 3, 4].map((n) => line(request(n, 'step', { n }))).join(''),
    )
    for (const id of [1, 2, 3, 4]) await peer.response(id)
    expect(started).toEqual(['first', 'note hello', 'step 2', 'step 3', 'step 4'])
    expect(peer.messages).toEqual([
      { jsonrpc: '2.0', id: 1, result: 'ok' },
      ...[2, 3, 4].map((id) => ({ jsonrpc: '2.0', id, result: true })),
    ])
  })

  it('answers a request whose handler returns a value at once, and starts the next one at once', async () => {
    const started: number[] = []
    const { dispatcher, responses } = dispatcherOver({
      request: (_method, params) => {
        const n = (params as { n: number }).n
        started.push(n)
        return n === 2 ? Promise.resolve(n) : n
      },
    })
    dispatcher.accept([1, 2, 3, 4].map((n) => request(n, 'm', { n })))
    // 1 answered at once; 2 returned a promise, so 3 waits for a turn of the event loop.
    expect(started).toEqual([1, 2])
    expect(responses.map((r) => r.id)).toEqual([1])
    expect(dispatcher.backlog).toBe(2)
    dispatcher.accept([request(5, 'm', { n: 5 })])
    expect(started).toEqual([1, 2]) // wire order: 5 waits behind 3 and 4
    await nextTurn()
    expect(started).toEqual([1, 2, 3, 4, 5])
    expect(responses.map((r) => r.id)).toEqual([1, 2, 3, 4, 5])
    expect(dispatcher.backlog).toBe(0)
  })

  it('answers a cancelled running request at once with cancelledAnswer, and drops what its handler settles with later', async () => {
    let finish = (_value: string) => {}
    const seen: boolean[] = []
    const { dispatcher, responses } = dispatcherOver({
      request: (_method, _params, token) =>
        new Promise<string>((resolve) => {
          finish = resolve
          token.onCancellationRequested(() => seen.push(token.isCancellationRequested))
        }),
      cancelledAnswer: (method) =>
        method === 'plain' ? new ResponseError(-32800, 'request cancelled') : undefined,
    })
    dispatcher.accept([request(1, 'plain')])
    dispatcher.cancel(1)
    expect(seen).toEqual([true])
    expect(responses).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32800, message: 'request cancelled' } },
    ])
    finish('late')
    await nextTurn()
    expect(responses).toHaveLength(1)
    dispatcher.accept([request(2, 'own')])
    dispatcher.cancel(2) // its handler answers for itself
    finish('its own answer')
    await nextTurn()
    expect(responses.at(-1)).toEqual({ jsonrpc: '2.0', id: 2, result: 'its own answer' })
  })

  it('answers a request cancelled while queued with cancelledAnswer in its turn, without running it', async () => {
    const started: number[] = []
    const { dispatcher, responses } = dispatcherOver({
      request: (_method, params) => {
        started.push((params as { n: number }).n)
        return Promise.resolve('ran')
      },
      cancelledAnswer: () => new ResponseError(-32800, 'request cancelled'),
    })
    dispatcher.accept([1, 2, 3].map((n) => request(n, 'm', { n })))
    dispatcher.cancel(2)
    await nextTurn()
    await nextTurn()
    expect(started).toEqual([1, 3])
    expect(responses).toEqual([
      { jsonrpc: '2.0', id: 1, result: 'ran' },
      { jsonrpc: '2.0', id: 2, error: { code: -32800, message: 'request cancelled' } },
      { jsonrpc: '2.0', id: 3, result: 'ran' },
    ])
  })

  it('starts a request cancelled while queued with its token cancelled', async () => {
    const seen: Array<[number, boolean]> = []
    const { dispatcher } = dispatcherOver({
      request: (_method, params, token) => {
        seen.push([(params as { n: number }).n, token.isCancellationRequested])
        return Promise.resolve()
      },
    })
    dispatcher.accept([1, 2, 3].map((n) => request(n, 'm', { n })))
    dispatcher.cancel(3)
    dispatcher.cancel(1) // running: its token fires
    await nextTurn()
    await nextTurn()
    expect(seen).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ])
  })

  it('cancels a request whose cancellation comes in the same chunk', async () => {
    const server: TestServer = startTestServer()
    connections.push(server.connection)
    server.peer.send(
      line(request(1, 'wait', { key: 'k' })) +
        line(request(2, 'ping')) +
        line({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 1 } }),
    )
    expect(await server.peer.response(1)).toEqual({ jsonrpc: '2.0', id: 1, result: { cancelled: true } })
    expect(await server.peer.response(2)).toEqual({ jsonrpc: '2.0', id: 2, result: 'pong' })
  })
})

describe('answers', () => {
  it('sends undefined as null, a ResponseError as it is, anything else as -32603', async () => {
    const { dispatcher, responses } = dispatcherOver({
      request: async (method) => {
        if (method === 'nothing') return undefined
        if (method === 'refuse') throw new ResponseError(-32602, 'no', { field: 'x' })
        throw new Error('boom')
      },
    })
    dispatcher.accept([request(1, 'nothing'), request(2, 'refuse'), request(3, 'crash')])
    await nextTurn()
    await nextTurn()
    expect(responses).toEqual([
      { jsonrpc: '2.0', id: 1, result: null },
      { jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'no', data: { field: 'x' } } },
      { jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'Request crash failed with message: boom' } },
    ])
  })

  it('never answers a notification, and logs what its handler throws', async () => {
    const { dispatcher, responses, logs } = dispatcherOver({
      notification: () => {
        throw new Error('bad note')
      },
    })
    dispatcher.accept([{ jsonrpc: '2.0', method: 'note' }])
    await nextTurn()
    expect(responses).toEqual([])
    expect(logs).toEqual(['notification note failed: bad note'])
  })

  it('starts nothing after dispose, but a running handler still answers', async () => {
    let finish = (_value: string) => {}
    const started: string[] = []
    const { dispatcher, responses } = dispatcherOver({
      request: (method) => {
        started.push(method)
        return new Promise((resolve) => {
          finish = resolve
        })
      },
    })
    dispatcher.accept([request(1, 'a'), request(2, 'b')])
    dispatcher.dispose()
    await nextTurn()
    finish('done')
    await nextTurn()
    expect(started).toEqual(['a'])
    expect(responses).toEqual([{ jsonrpc: '2.0', id: 1, result: 'done' }])
  })
})
