import { describe, expect, it } from 'vitest'
import { type TestServer, testServers } from '../../test/support/wire/test-server.js'

const start = testServers()

const wait = (id: number | string, key: string) => ({ jsonrpc: '2.0', id, method: 'wait', params: { key } })
const cancel = (requestId: unknown) => ({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId } })
const answersFor = (server: TestServer, id: unknown) =>
  server.peer.messages.filter((m) => m.id === id && ('result' in m || 'error' in m))

describe('request ids', () => {
  it('rejects a second request with an id in flight, without cross-wiring, and frees the id after', async () => {
    const server = start()
    server.peer.sendMessage(wait(7, 'first'))
    await server.started('first')
    server.peer.sendMessage({ jsonrpc: '2.0', id: 7, method: 'ping' })
    const duplicate = await server.peer.waitFor((m) => m.id === null)
    expect(duplicate).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringContaining('7'), data: { id: 7 } },
    })
    server.peer.sendMessage(cancel(7))
    expect(await server.peer.response(7)).toEqual({ jsonrpc: '2.0', id: 7, result: { cancelled: true } })
    server.peer.sendMessage({ jsonrpc: '2.0', id: 7, method: 'ping' })
    await server.peer.sync()
    expect(answersFor(server, 7)).toEqual([
      { jsonrpc: '2.0', id: 7, result: { cancelled: true } },
      { jsonrpc: '2.0', id: 7, result: 'pong' },
    ])
  })

  it('treats 1 and "1" as the same id while in flight', async () => {
    const server = start()
    server.peer.sendMessage(wait(1, 'n'))
    await server.started('n')
    server.peer.sendMessage({ jsonrpc: '2.0', id: '1', method: 'ping' })
    await server.peer.sync()
    expect(answersFor(server, '1')).toEqual([])
    expect(server.peer.messages).toContainEqual(
      expect.objectContaining({ id: null, error: expect.anything() }),
    )
  })

  it('answers an invalid message reusing an in-flight id with id null', async () => {
    const server = start()
    server.peer.sendMessage(wait(4, 'x'))
    await server.started('x')
    server.peer.send('{"jsonrpc":"2.1","id":4,"method":"ping"}\n')
    await server.peer.sync()
    expect(answersFor(server, 4)).toEqual([])
    expect(server.peer.messages).toContainEqual(
      expect.objectContaining({ id: null, error: expect.anything() }),
    )
  })
})

describe('$/cancel_request', () => {
  it('fires the cancellation token of the running request', async () => {
    const server = start()
    server.peer.sendMessage(wait('w1', 'w1'))
    await server.started('w1')
    server.peer.sendMessage(cancel('w1'))
    await server.cancelled('w1')
    expect(await server.peer.response('w1')).toMatchObject({ result: { cancelled: true } })
    expect(answersFor(server, 'w1')).toHaveLength(1)
  })

  it('cancels a request that is queued but not yet running', async () => {
    const server = start()
    server.peer.send(`${JSON.stringify(wait(3, 'q'))}\n${JSON.stringify(cancel(3))}\n`)
    expect(await server.peer.response(3)).toMatchObject({ result: { cancelled: true } })
  })

  it('ignores unknown, finished and malformed cancellations without answering or crashing', async () => {
    const server = start()
    server.peer.sendMessage({ jsonrpc: '2.0', id: 5, method: 'ping' })
    await server.peer.response(5)
    server.peer.sendMessage(cancel(5))
    server.peer.sendMessage(cancel(12345))
    server.peer.sendMessage(cancel({ nested: true }))
    server.peer.sendMessage({ jsonrpc: '2.0', method: '$/cancel_request' })
    server.peer.sendMessage({ jsonrpc: '2.0', method: '$/cancelRequest', params: [] })
    await server.peer.sync()
    expect(server.peer.messages.filter((m) => m.id !== 5 && !String(m.id).startsWith('sync-'))).toEqual([])
    expect(server.logs.filter((l) => l.includes('no such request in flight'))).toHaveLength(5)
    // A later request with the cancelled id is not born cancelled.
    server.peer.sendMessage(wait(12345, 'late'))
    await server.started('late')
    server.peer.sendMessage(cancel(12345))
    expect(await server.peer.response(12345)).toMatchObject({ result: { cancelled: true } })
  })
})
