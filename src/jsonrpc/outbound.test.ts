import { describe, expect, it } from 'vitest'
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc'
import { type TestServer, testServers } from '../../test/support/wire/test-server.js'

const start = testServers()

const outbound = (server: TestServer) => server.peer.messages.filter((m) => 'method' in m)

describe('requests of ours', () => {
  it('are numbered 0, 1, 2… in send order and written as {jsonrpc, id, method, params}', async () => {
    const server = start()
    for (let i = 0; i < 3; i++) server.connection.request('client/ask', { n: i }).catch(() => {})
    await server.peer.waitFor(() => outbound(server).length === 3)
    expect(server.peer.lines.slice(0, 3)).toEqual(
      [0, 1, 2].map((n) => `{"jsonrpc":"2.0","id":${n},"method":"client/ask","params":{"n":${n}}}`),
    )
  })

  it('resolve with the result of their response and reject with its error as a ResponseError', async () => {
    const server = start()
    const answered = server.connection.request('client/ask', { q: 1 })
    const refused = server.connection.request('client/ask', { q: 2 }).catch((error: unknown) => error)
    await server.peer.waitFor(() => outbound(server).length === 2)
    server.peer.sendMessage({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'no', data: { q: 2 } } })
    server.peer.sendMessage({ jsonrpc: '2.0', id: 0, result: 'answer' })
    expect(await answered).toBe('answer')
    const error = await refused
    expect(error).toBeInstanceOf(ResponseError)
    expect(error).toMatchObject({ code: -32602, message: 'no', data: { q: 2 } })
  })

  it('log a response to an id that is not pending, or to the same id twice, and drop it', async () => {
    const server = start()
    const reply = server.connection.request('client/ask', {})
    await server.peer.waitFor((m) => m.method === 'client/ask')
    server.peer.send(
      '{"jsonrpc":"2.0","id":0,"result":1}\n{"jsonrpc":"2.0","id":0,"result":2}\n{"jsonrpc":"2.0","id":"0","result":3}\n',
    )
    expect(await reply).toBe(1)
    await server.peer.sync()
    expect(server.logs.filter((l) => l.startsWith('ignored a response to unknown request id'))).toEqual([
      'ignored a response to unknown request id 0',
      'ignored a response to unknown request id "0"',
    ])
  })

  it('reject at once with the reason when their signal aborts, send nothing for it, and drop the late response silently', async () => {
    const server = start()
    const controller = new AbortController()
    const reply = server.connection
      .request('client/ask', {}, controller.signal)
      .catch((error: unknown) => error)
    await server.peer.waitFor((m) => m.method === 'client/ask')
    controller.abort(new Error('not needed any more'))
    expect(await reply).toMatchObject({ message: 'not needed any more' })
    server.peer.sendMessage({ jsonrpc: '2.0', id: 0, result: 'late' })
    await server.peer.sync()
    expect(outbound(server)).toHaveLength(1)
    expect(server.logs).toEqual([])
  })

  it('are not sent at all when their signal has aborted already', async () => {
    const server = start()
    const reason = new Error('too late')
    await expect(server.connection.request('client/ask', {}, AbortSignal.abort(reason))).rejects.toBe(reason)
    expect(server.wire).toEqual([])
  })

  it('are cancelled on the wire when the connection was told how', async () => {
    const server = start({ outboundCancel: { method: '$/cancel_request', idParam: 'requestId' } })
    const controller = new AbortController()
    const reply = server.connection.request('client/ask', {}, controller.signal).catch(() => 'aborted')
    await server.peer.waitFor((m) => m.method === 'client/ask')
    controller.abort()
    expect(await reply).toBe('aborted')
    const notice = await server.peer.waitFor((m) => m.method === '$/cancel_request')
    expect(notice).toEqual({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 0 } })
  })

  it('are cancelled on the wire as the request itself says, over the connection’s default', async () => {
    const server = start({ outboundCancel: { method: '$/cancel_request', idParam: 'requestId' } })
    const quiet = new AbortController()
    const told = new AbortController()
    const first = server.connection.request('client/ask', {}, quiet.signal, false).catch(() => 'aborted')
    const second = server.connection
      .request('client/ask', {}, told.signal, { method: '$/cancelRequest', idParam: 'id' })
      .catch(() => 'aborted')
    await server.peer.waitFor(() => outbound(server).length === 2)
    quiet.abort()
    told.abort()
    expect([await first, await second]).toEqual(['aborted', 'aborted'])
    const notice = await server.peer.waitFor((m) => m.method === '$/cancelRequest')
    expect(notice).toEqual({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 1 } })
    await server.peer.sync()
    expect(outbound(server).map((m) => m.method)).toEqual(['client/ask', 'client/ask', '$/cancelRequest'])
  })

  it('still pending when the connection is disposed reject with PendingResponseRejected', async () => {
    const server = start()
    const reply = server.connection.request('client/ask', {}).catch((error: unknown) => error)
    server.connection.dispose()
    expect(await reply).toMatchObject({ code: ErrorCodes.PendingResponseRejected })
  })

  it('that cannot be serialized reject with MessageWriteError and write nothing', async () => {
    const server = start()
    const error = await server.connection.request('client/ask', { n: 1n }).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: ErrorCodes.MessageWriteError })
    expect(server.wire).toEqual([])
  })
})

describe('notifications of ours', () => {
  it('are written as {jsonrpc, method, params}, a given serialized line as it is', async () => {
    const server = start()
    await server.connection.notify('note', { n: 1 })
    const line = '{"jsonrpc":"2.0","method":"note","params":{"n":2}}'
    await server.connection.notify('note', { n: 2 }, Buffer.from(`${line}\n`))
    await server.peer.waitFor(() => server.peer.lines.length === 2)
    expect(server.peer.lines).toEqual(['{"jsonrpc":"2.0","method":"note","params":{"n":1}}', line])
  })
})
