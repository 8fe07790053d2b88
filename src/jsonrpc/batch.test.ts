import { describe, expect, it } from 'vitest'
import { type TestServer, testServers } from '../../test/support/wire/test-server.js'
import type { BatchPolicy } from './batch.js'

const start = testServers()

/** Batches are read while `state.on`; `solo` must come on its own line. */
function policy(state = { on: true }): BatchPolicy {
  return { accepted: () => state.on, unbatchable: new Set(['solo']) }
}

const request = (id: unknown, method: string, params?: unknown) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params !== undefined && { params }),
})

/** Sends `value` as one line, syncs, and returns every line received except the sync answer. */
async function linesFor(server: TestServer, value: unknown): Promise<unknown[]> {
  server.peer.send(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`)
  await server.peer.sync()
  return server.peer.messages.filter((m) => !String(m.id).startsWith('sync-'))
}

const byId = (answers: unknown) =>
  [...(answers as Array<{ id: unknown }>)].sort((a, b) => String(a.id).localeCompare(String(b.id)))

describe('JSON-RPC batches where the policy accepts them', () => {
  it('answers a mixed batch with one array: results, errors per entry, nothing for notifications', async () => {
    const server = start({ batches: policy() })
    const lines = await linesFor(server, [
      request(1, 'ping'),
      request(2, 'echo', { a: 1 }),
      { jsonrpc: '2.0', method: 'note', params: { n: 1 } },
      { foo: 1 },
      request(3, 'solo'),
      request(4, 'nope'),
      [request(5, 'ping')],
    ])
    expect(lines).toHaveLength(1)
    expect(Array.isArray(lines[0])).toBe(true)
    expect(byId(lines[0])).toEqual([
      { jsonrpc: '2.0', id: 1, result: 'pong' },
      { jsonrpc: '2.0', id: 2, result: { a: 1 } },
      {
        jsonrpc: '2.0',
        id: 3,
        error: { code: -32600, message: expect.stringContaining('solo must be sent on its own line') },
      },
      { jsonrpc: '2.0', id: 4, error: { code: -32601, message: expect.any(String) } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } },
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.stringContaining('must not be a batch') },
      },
    ])
    expect(server.notes).toEqual([{ n: 1 }])
  })

  it('answers an empty batch with one -32600 object, not an array', async () => {
    const lines = await linesFor(start({ batches: policy() }), '[]')
    expect(lines).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } },
    ])
  })

  it('answers a batch of notifications with nothing, and runs them', async () => {
    const server = start({ batches: policy() })
    const lines = await linesFor(server, [
      { jsonrpc: '2.0', method: 'note', params: { n: 1 } },
      { jsonrpc: '2.0', method: 'note', params: { n: 2 } },
    ])
    expect(lines).toEqual([])
    expect(server.notes).toEqual([{ n: 1 }, { n: 2 }])
  })

  it('refuses a second entry with an id already in flight, and runs the first', async () => {
    const lines = await linesFor(start({ batches: policy() }), [request(7, 'ping'), request(7, 'echo', {})])
    expect(byId(lines[0])).toEqual([
      { jsonrpc: '2.0', id: 7, result: 'pong' },
      { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600, data: { id: 7 } }) },
    ])
  })

  it('holds the array until the last request of the batch is answered (here: cancelled)', async () => {
    const server = start({ batches: policy() })
    server.peer.send(`${JSON.stringify([request('w', 'wait', { key: 'k' }), request('p', 'ping')])}\n`)
    await server.started('k')
    await server.peer.sync()
    expect(server.peer.lines.filter((line) => line.startsWith('['))).toEqual([])
    server.peer.sendMessage({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 'w' } })
    const answer = await server.peer.waitFor((m) => Array.isArray(m))
    expect(byId(answer)).toEqual([
      { jsonrpc: '2.0', id: 'p', result: 'pong' },
      { jsonrpc: '2.0', id: 'w', result: { cancelled: true } },
    ])
  })

  it('takes a cancellation inside the batch that names a request before it', async () => {
    const server = start({ batches: policy() })
    const lines = await linesFor(server, [
      request('w', 'wait', { key: 'k' }),
      { jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 'w' } },
    ])
    expect(lines).toEqual([[{ jsonrpc: '2.0', id: 'w', result: { cancelled: true } }]])
  })
})

describe('JSON-RPC batches where the policy refuses them', () => {
  it.each([
    ['no policy', undefined],
    ['a policy not accepting yet', policy({ on: false })],
  ])('answers with one -32600 and runs none of it (%s)', async (_name, batches) => {
    const server = start(batches ? { batches } : {})
    const lines = await linesFor(server, [request(1, 'ping'), { jsonrpc: '2.0', method: 'note', params: {} }])
    expect(lines).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.stringContaining('batches are not supported') },
      },
    ])
    expect(server.notes).toEqual([])
  })
})
