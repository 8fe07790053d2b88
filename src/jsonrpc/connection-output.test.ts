import { PassThrough } from 'node:stream'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { chunkSink } from '../../test/support/wire/chunk-sink.js'
import { TestPeer } from '../../test/support/wire/test-peer.js'
import { createNdjsonConnection, type NdjsonConnection } from './connection.js'
import { MAX_HELD_LINES, NdjsonMessageWriter } from './write/writer.js'

const connections: NdjsonConnection[] = []
afterEach(() => {
  for (const connection of connections.splice(0)) connection.dispose()
})

const line = (message: unknown) => `${JSON.stringify(message)}\n`
const request = (id: number, method: string, params: object = {}) => ({ jsonrpc: '2.0', id, method, params })
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('a result that cannot be serialized', () => {
  it('is answered with -32603 naming why, and the id is free again', async () => {
    const toServer = new PassThrough()
    const fromServer = new PassThrough()
    const wire = createNdjsonConnection(toServer, fromServer, {
      inbound: {
        request: (method) => (method === 'big' ? { n: 1n } : 'ok'),
        notification: () => {},
      },
    })
    connections.push(wire)
    const peer = new TestPeer(toServer, fromServer)
    peer.send(line(request(1, 'big')))
    const answer = (await peer.response(1)) as { error?: { code: number; message: string } }
    expect(answer.error?.code).toBe(-32603)
    expect(answer.error?.message).toMatch(/serialize/i)
    peer.send(line(request(1, 'fine')) + line(request(2, 'fine')))
    await peer.response(2)
    expect(peer.messages.slice(1)).toEqual([
      { jsonrpc: '2.0', id: 1, result: 'ok' },
      { jsonrpc: '2.0', id: 2, result: 'ok' },
    ])
  })
})

describe('coalescing output', () => {
  it('hands over in one write the answers the running code and the microtasks queued before the first wrote, without waiting a turn', async () => {
    const { sink, chunks } = chunkSink()
    const writer = new NdjsonMessageWriter(sink)
    const answer = (id: number) => ({ jsonrpc: '2.0', id, result: id })
    queueMicrotask(() => void writer.write(answer(3)))
    const handed = [writer.write(answer(1)), writer.write(answer(2))]
    queueMicrotask(() => void writer.write(answer(4)))
    let seenBeforeTheLastLine: string[] = []
    queueMicrotask(() => {
      seenBeforeTheLastLine = [...chunks]
    })
    expect(chunks).toEqual([])
    await Promise.all(handed)
    expect(seenBeforeTheLastLine).toEqual([line(answer(1)) + line(answer(2)) + line(answer(3))])
    await nextTurn()
    expect(chunks).toEqual([line(answer(1)) + line(answer(2)) + line(answer(3)), line(answer(4))])
  })

  it('hands a notification that starts a batch over at once, and the lines after it until the next microtask together', async () => {
    const { sink, chunks } = chunkSink()
    const writer = new NdjsonMessageWriter(sink)
    const note = (n: number) => ({ jsonrpc: '2.0', method: 'note', params: { n } })
    void writer.write(note(1))
    expect(chunks).toEqual([line(note(1))])
    void writer.write(note(2))
    void writer.write(note(3))
    expect(chunks).toHaveLength(1)
    await Promise.resolve()
    expect(chunks).toEqual([line(note(1)), line(note(2)) + line(note(3))])
    await nextTurn()
    void writer.write(note(4))
    expect(chunks.at(-1)).toBe(line(note(4)))
  })

  it('writes held lines at once, in one chunk, when MAX_HELD_LINES of them are waiting', () => {
    const { sink, chunks } = chunkSink()
    const writer = new NdjsonMessageWriter(sink)
    const answer = (id: number) => ({ jsonrpc: '2.0', id, result: 'a' })
    const lines: string[] = []
    for (let n = 1; n < MAX_HELD_LINES; n++) {
      void writer.write(answer(n))
      lines.push(line(answer(n)))
    }
    expect(chunks).toEqual([])
    void writer.write(answer(MAX_HELD_LINES))
    lines.push(line(answer(MAX_HELD_LINES)))
    expect(chunks).toEqual([lines.join('')])
  })

  it('answers the requests of one chunk in wire order, each answer whole lines, none waiting for the others', async () => {
    const toServer = new PassThrough()
    const { sink, chunks } = chunkSink()
    const answered: number[] = []
    const wire = createNdjsonConnection(toServer, sink, {
      inbound: {
        request: async (_method, params) => {
          answered.push((params as { n: number }).n)
          return 'ok'
        },
        notification: () => {},
      },
    })
    connections.push(wire)
    toServer.write([1, 2, 3, 4, 5].map((n) => line(request(n, 'm', { n }))).join(''))
    await vi.waitFor(() => expect(chunks.join('')).toContain(line({ jsonrpc: '2.0', id: 5, result: 'ok' })))
    expect(answered).toEqual([1, 2, 3, 4, 5])
    expect(chunks.every((chunk) => chunk.endsWith('\n'))).toBe(true)
    expect(chunks.join('')).toBe(
      [1, 2, 3, 4, 5].map((id) => line({ jsonrpc: '2.0', id, result: 'ok' })).join(''),
    )
  })
})
