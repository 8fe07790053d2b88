import { PassThrough, Writable } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import type { Message } from 'vscode-jsonrpc'
import { TestPeer } from '../../../test/support/wire/test-peer.js'
import { startTestServer, type TestServer } from '../../../test/support/wire/test-server.js'
import { BATCH_METHOD, batchSize, carried, carry, unpackBatches } from './batch.js'
import { createNdjsonConnection, type NdjsonConnection } from './connection.js'
import { MAX_HELD_LINES, NdjsonMessageWriter } from './writer.js'

const connections: Array<{ connection: { dispose(): void } }> = []
afterEach(() => {
  for (const c of connections.splice(0)) c.connection.dispose()
})

const line = (message: unknown) => `${JSON.stringify(message)}\n`
const request = (id: number, method: string, params: unknown = {}) => ({ jsonrpc: '2.0', id, method, params })

/** A connection whose handlers record when they start; `step` needs what `first` set up. */
function startRecording(): { wire: NdjsonConnection; peer: TestPeer; started: string[] } {
  const toServer = new PassThrough()
  const fromServer = new PassThrough()
  const wire = createNdjsonConnection(toServer, fromServer)
  connections.push(wire)
  const started: string[] = []
  let ready = false
  wire.connection.onRequest('first', async () => {
    started.push('first')
    await Promise.resolve()
    await Promise.resolve()
    ready = true
    return 'ok'
  })
  wire.connection.onRequest('step', (params: { n: number }) => {
    started.push(`step ${params.n}`)
    return ready
  })
  wire.connection.listen()
  return { wire, peer: new TestPeer(toServer, fromServer), started }
}

describe('carriers', () => {
  it('hold their messages in order and count them; other messages are not carriers', () => {
    const messages = [request(1, 'a'), request(2, 'b')] as Message[]
    const carrier = carry(messages)
    expect(carried(carrier)).toEqual(messages)
    expect(batchSize(carrier)).toBe(2)
    expect(batchSize(messages[0] as Message)).toBe(1)
    expect(carried({ jsonrpc: '2.0', method: BATCH_METHOD, params: messages } as Message)).toBeUndefined()
  })

  it("unpackBatches hands a carrier's messages over in order, the first at once", async () => {
    const handed: unknown[] = []
    const strategy = unpackBatches()
    const messages = [1, 2, 3].map((n) => request(n, 'm')) as Message[]
    strategy.handleMessage(carry(messages), (m) => {
      handed.push((m as unknown as { id: number }).id)
    })
    expect(handed).toEqual([1])
    await new Promise((resolve) => setImmediate(resolve))
    expect(handed).toEqual([1, 2, 3])
  })
})

describe('dispatching the messages of one chunk', () => {
  it('starts them in wire order, each after the microtasks of the one before, and answers each once', async () => {
    const { peer, started } = startRecording()
    peer.send(line(request(1, 'first')) + [2, 3, 4].map((n) => line(request(n, 'step', { n }))).join(''))
    for (const id of [1, 2, 3, 4]) await peer.response(id)
    expect(started).toEqual(['first', 'step 2', 'step 3', 'step 4'])
    expect(peer.messages).toEqual([
      { jsonrpc: '2.0', id: 1, result: 'ok' },
      ...[2, 3, 4].map((id) => ({ jsonrpc: '2.0', id, result: true })),
    ])
  })

  it('cancels a request whose cancellation comes in the same chunk', async () => {
    const server: TestServer = startTestServer()
    connections.push(server)
    server.peer.send(
      line(request(1, 'wait', { key: 'k' })) +
        line(request(2, 'ping')) +
        line({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 1 } }),
    )
    expect(await server.peer.response(1)).toEqual({ jsonrpc: '2.0', id: 1, result: { cancelled: true } })
    expect(await server.peer.response(2)).toEqual({ jsonrpc: '2.0', id: 2, result: 'pong' })
  })

  it('does not unpack a notification from the wire that uses the carrier method name', async () => {
    const server = startTestServer()
    connections.push(server)
    server.peer.send(line({ jsonrpc: '2.0', method: BATCH_METHOD, params: [request(9, 'ping')] }))
    await server.peer.sync()
    expect(server.peer.messages.filter((m) => m.id === 9)).toEqual([])
  })
})

describe('coalescing output', () => {
  it('writes the lines of one turn in one chunk while coalesceWhile is true, at once otherwise', async () => {
    const chunks: string[] = []
    const sink = new Writable({
      decodeStrings: false,
      write(chunk: string, _encoding, callback) {
        chunks.push(chunk)
        callback()
      },
    })
    let coalesce = true
    const writer = new NdjsonMessageWriter(sink, { coalesceWhile: () => coalesce })
    const first = [writer.write(request(1, 'a')), writer.write(request(2, 'b'))]
    expect(chunks).toEqual([])
    await Promise.all(first)
    expect(chunks).toEqual([line(request(1, 'a')) + line(request(2, 'b'))])
    coalesce = false
    void writer.write(request(3, 'c'))
    expect(chunks).toHaveLength(2)
  })

  it('writes held lines at once, in one chunk, when MAX_HELD_LINES of them are waiting', () => {
    const chunks: string[] = []
    const sink = new Writable({
      decodeStrings: false,
      write(chunk: string, _encoding, callback) {
        chunks.push(chunk)
        callback()
      },
    })
    const writer = new NdjsonMessageWriter(sink, { coalesceWhile: () => true })
    const lines: string[] = []
    for (let n = 1; n < MAX_HELD_LINES; n++) {
      void writer.write(request(n, 'a'))
      lines.push(line(request(n, 'a')))
    }
    expect(chunks).toEqual([])
    void writer.write(request(MAX_HELD_LINES, 'a'))
    lines.push(line(request(MAX_HELD_LINES, 'a')))
    expect(chunks).toEqual([lines.join('')])
  })
})
