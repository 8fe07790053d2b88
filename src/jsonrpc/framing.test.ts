import { setImmediate as nextTick } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { type TestServer, testServers } from '../../test/support/wire/test-server.js'

const start = testServers()

const ping = (id: number | string) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"ping"}`

/** Writes `bytes` one at a time, each in its own chunk. */
async function sendBytewise(server: TestServer, bytes: Buffer): Promise<void> {
  for (const byte of bytes) {
    server.peer.send(Buffer.from([byte]))
    await nextTick()
  }
}

describe('NDJSON framing through a connection', () => {
  it('answers a truncated last line with -32700 at EOF, and resolves closed', async () => {
    const { peer, closed } = start()
    peer.send('{"jsonrpc":"2.0","id":1,"meth')
    peer.end()
    await closed
    const error = await peer.waitFor((m) => 'error' in m)
    expect(error).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } })
  })

  it('handles a complete last line without a newline at EOF', async () => {
    const { peer } = start()
    peer.send(ping(2))
    peer.end()
    expect(await peer.response(2)).toMatchObject({ result: 'pong' })
  })

  it('tolerates CRLF line endings and does not pass the CR on', async () => {
    const server = start()
    server.peer.send(`${ping(1)}\r\n${ping(2)}\r\n`)
    expect(await server.peer.response(1)).toMatchObject({ result: 'pong' })
    expect(await server.peer.response(2)).toMatchObject({ result: 'pong' })
    expect(server.wire.filter((l) => l.startsWith('in ')).every((l) => !l.endsWith('\r'))).toBe(true)
  })

  it('ignores blank lines without answering them', async () => {
    const server = start()
    server.peer.send(`\n\n   \r\n\t\n${ping(1)}\n\r\n`)
    await server.peer.sync()
    expect(server.peer.messages.map((m) => m.id)).toEqual([1, expect.stringMatching(/^sync-/)])
  })

  it('reassembles a message split across many chunks', async () => {
    const { peer } = start()
    const line = Buffer.from(
      `{"jsonrpc":"2.0","id":5,"method":"echo","params":{"text":"${'x'.repeat(300)}"}}\n`,
    )
    for (let i = 0; i < line.length; i += 7) {
      peer.send(line.subarray(i, i + 7))
      await nextTick()
    }
    expect(await peer.response(5)).toMatchObject({ result: { text: 'x'.repeat(300) } })
  })

  it('splits many messages arriving in one chunk', async () => {
    const { peer } = start()
    const ids = Array.from({ length: 50 }, (_, i) => i + 1)
    peer.send(ids.map((id) => `${ping(id)}\n`).join(''))
    for (const id of ids) expect(await peer.response(id)).toMatchObject({ result: 'pong' })
    expect(peer.lines).toHaveLength(50)
  })

  it('decodes a 4-byte UTF-8 character sent one byte per chunk', async () => {
    const server = start()
    const text = 'a😀b€c'
    const line = Buffer.from(`{"jsonrpc":"2.0","id":"u","method":"echo","params":{"text":"${text}"}}\n`)
    await sendBytewise(server, line)
    expect(await server.peer.response('u')).toMatchObject({ result: { text } })
  })

  it('keeps U+2028 and U+2029 inside their string (no split, unlike readline)', async () => {
    const server = start()
    const text = 'one\u2028two\u2029three'
    server.peer.sendMessage({ jsonrpc: '2.0', id: 1, method: 'echo', params: { text } })
    expect(await server.peer.response(1)).toMatchObject({ result: { text } })
    await server.peer.sync()
    expect(server.peer.lines).toHaveLength(2)
  })

  it('rejects an over-limit line with -32600 id null and keeps serving', async () => {
    const server = start({ maxLineBytes: 1024 })
    const big = `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"text":"${'y'.repeat(5000)}"}}\n`
    for (let i = 0; i < big.length; i += 512) {
      server.peer.send(big.slice(i, i + 512))
      await nextTick()
    }
    server.peer.send(`${ping(2)}\n`)
    expect(await server.peer.response(2)).toMatchObject({ result: 'pong' })
    const [first] = server.peer.messages
    expect(first).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringContaining('1024 bytes'), data: { maxLineBytes: 1024 } },
    })
    expect(server.peer.messages.filter((m) => m.id === 1)).toEqual([])
  })

  it('accepts a line of exactly maxLineBytes, CRLF included, and rejects one byte more', async () => {
    const limit = 128 // room for the sync ping
    const server = start({ maxLineBytes: limit })
    const sized = (id: string, bytes: number) => {
      const head = `{"jsonrpc":"2.0","id":"${id}","method":"echo","params":{"t":"`
      return `${head}${'z'.repeat(bytes - head.length - 3)}"}}`
    }
    expect(Buffer.byteLength(sized('a', limit))).toBe(limit)
    server.peer.send(`${sized('a', limit)}\r\n${sized('bb', limit + 1)}\n`)
    expect(await server.peer.response('a')).toMatchObject({ result: { t: expect.any(String) } })
    await server.peer.sync()
    expect(server.peer.messages.filter((m) => m.id === 'bb')).toEqual([])
    expect(server.peer.messages.filter((m) => (m.error as { code?: number })?.code === -32600)).toHaveLength(
      1,
    )
  })

  it('writes every output line as exactly one JSON value with no raw newline', async () => {
    const server = start({ maxLineBytes: 200 })
    server.peer.sendMessage({ jsonrpc: '2.0', id: 1, method: 'echo', params: { text: 'a\nb\r\nc\u2028' } })
    server.peer.send('not json\n[]\n{"jsonrpc":"2.1","id":2}\n')
    server.peer.send(`${'q'.repeat(500)}\n`)
    await server.peer.sync()
    expect(server.peer.unterminated).toBe('')
    expect(server.peer.lines.length).toBe(6)
    for (const line of server.peer.lines) {
      expect(line).not.toMatch(/[\n\r]/)
      expect(() => JSON.parse(line)).not.toThrow()
    }
    expect(server.peer.messages.find((m) => m.id === 1)).toMatchObject({
      result: { text: 'a\nb\r\nc\u2028' },
    })
  })

  it('taps every raw line in both directions, including rejected input and error answers', async () => {
    const server = start()
    server.peer.send(`garbage\n${ping(1)}\n`)
    await server.peer.response(1)
    expect(server.wire.slice(0, 4)).toEqual([
      'in garbage',
      expect.stringMatching(/^out \{"jsonrpc":"2.0","id":null,"error":\{"code":-32700/),
      `in ${ping(1)}`,
      'out {"jsonrpc":"2.0","id":1,"result":"pong"}',
    ])
  })

  it('resolves closed at input EOF, and refuses requests of ours from then on', async () => {
    const server = start()
    server.peer.end()
    await server.closed
    await expect(server.connection.request('client/ask', {})).rejects.toThrow('Connection is closed.')
    expect(server.wire.filter((line) => line.includes('client/ask'))).toEqual([])
  })
})
