import { describe, expect, it } from 'vitest'
import { type TestServer, testServers } from '../../test/support/wire/test-server.js'
import { classify } from './envelope.js'

const start = testServers()

/** Sends raw lines, syncs, and returns every message received except the sync answer. */
async function answersTo(server: TestServer, ...lines: string[]): Promise<Array<Record<string, unknown>>> {
  server.peer.send(lines.map((line) => `${line}\n`).join(''))
  await server.peer.sync()
  return server.peer.messages.filter((m) => !String(m.id).startsWith('sync-'))
}

const invalid = (id: unknown) => ({
  jsonrpc: '2.0',
  id,
  error: { code: -32600, message: expect.any(String) },
})

describe('envelope errors the wire layer answers itself', () => {
  it('answers malformed JSON with -32700 and id null', async () => {
    const answers = await answersTo(start(), '{"jsonrpc":"2.0","id":1,"method":"ping"', '{oops}')
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error/) } },
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error/) } },
    ])
  })

  it('answers a line that is not valid UTF-8 with -32700', async () => {
    const server = start()
    server.peer.send(
      Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","x":"'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}\n'),
      ]),
    )
    await server.peer.sync()
    expect(server.peer.messages[0]).toMatchObject({ id: null, error: { code: -32700 } })
  })

  it.each([
    ['"2.1"', '"jsonrpc":"2.1",'],
    ['2.0 as a number', '"jsonrpc":2.0,'],
    ['missing', ''],
  ])('answers jsonrpc %s with -32600 carrying the request id', async (_name, field) => {
    const answers = await answersTo(start(), `{${field}"id":7,"method":"ping"}`)
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: 7, error: { code: -32600, message: expect.stringContaining('"2.0"') } },
    ])
  })

  it.each([
    ['[]', '[]'],
    ['{}', '{}'],
    ['1.5', '1.5'],
    ['true', 'true'],
    ['null (on a request)', 'null'],
  ])('answers an id of %s with -32600 and id null', async (_name, id) => {
    expect(await answersTo(start(), `{"jsonrpc":"2.0","id":${id},"method":"ping"}`)).toEqual([invalid(null)])
  })

  it('answers a method that is not a string, and a message of no known shape, with -32600', async () => {
    const answers = await answersTo(
      start(),
      '{"jsonrpc":"2.0","id":"m","method":1,"params":"bar"}',
      '{"jsonrpc":"2.0","id":3}',
      '{"jsonrpc":"2.0"}',
      '42',
      '"ping"',
      'null',
    )
    expect(answers).toEqual([
      invalid('m'),
      invalid(3),
      invalid(null),
      invalid(null),
      invalid(null),
      invalid(null),
    ])
  })

  it('answers params that are neither object nor array with -32600, even without an id', async () => {
    const answers = await answersTo(
      start(),
      '{"jsonrpc":"2.0","id":1,"method":"echo","params":5}',
      '{"jsonrpc":"2.0","id":2,"method":"echo","params":null}',
      '{"jsonrpc":"2.0","method":"note","params":"x"}',
    )
    expect(answers).toEqual([invalid(1), invalid(2), invalid(null)])
  })

  it("answers with the error a handler throws, as it is (the test server's echo refuses positional params)", async () => {
    const answers = await answersTo(start(), '{"jsonrpc":"2.0","id":1,"method":"echo","params":[1,2]}')
    expect(answers).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32602, message: expect.any(String) } }])
  })

  it('answers an unknown method with -32601 but never answers an unknown notification', async () => {
    const server = start()
    const answers = await answersTo(
      server,
      '{"jsonrpc":"2.0","id":1,"method":"nope"}',
      '{"jsonrpc":"2.0","method":"nope"}',
      '{"jsonrpc":"2.0","method":"note","params":{"n":1}}',
    )
    expect(answers).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32601, message: expect.any(String) } }])
    expect(server.notes).toEqual([{ n: 1 }])
  })

  it('answers _-prefixed extension methods: handled ones with a result, others with -32601', async () => {
    const answers = await answersTo(
      start(),
      '{"jsonrpc":"2.0","id":1,"method":"_dsh/hello"}',
      '{"jsonrpc":"2.0","id":2,"method":"_dsh/unknown","params":{}}',
    )
    // Answers to concurrent requests may come in any order (JSON-RPC matches them by id).
    expect(answers).toHaveLength(2)
    expect(answers).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: 1, result: 'hi' },
        { jsonrpc: '2.0', id: 2, error: { code: -32601, message: expect.any(String) } },
      ]),
    )
  })

  it('ignores and logs a response to a request it never sent', async () => {
    const server = start()
    const answers = await answersTo(
      server,
      '{"jsonrpc":"2.0","id":99,"result":{}}',
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}',
    )
    expect(answers).toEqual([])
    expect(server.logs.some((l) => l.includes('unknown request id 99'))).toBe(true)
  })
})

describe('batches (ACP v1 has none)', () => {
  it.each([
    ['empty', '[]'],
    ['of non-messages', '[1,2,3]'],
    ['mixed', '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"foo":1}]'],
    ['of notifications only', '[{"jsonrpc":"2.0","method":"note","params":{"n":1}}]'],
  ])('answers a batch %s with one -32600 and dispatches none of it', async (_name, batch) => {
    const server = start()
    expect(await answersTo(server, batch)).toEqual([invalid(null)])
    expect(server.notes).toEqual([])
  })
})

describe('classify', () => {
  it('tells requests, notifications and responses apart', () => {
    expect(classify({ jsonrpc: '2.0', id: 1, method: 'm' }).kind).toBe('request')
    expect(classify({ jsonrpc: '2.0', id: 's', method: 'm', params: [] }).kind).toBe('request')
    expect(classify({ jsonrpc: '2.0', method: 'm', params: {} }).kind).toBe('notification')
    expect(classify({ jsonrpc: '2.0', id: 1, result: null }).kind).toBe('response')
    expect(classify({ jsonrpc: '2.0', id: null, error: { code: 1, message: 'x' } }).kind).toBe('response')
    expect(classify({ jsonrpc: '2.0', id: 1, error: 'x' }).kind).toBe('invalid')
  })
})
