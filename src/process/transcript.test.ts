import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { TestPeer } from '../../test/support/wire/test-peer.js'
import { createNdjsonConnection } from '../jsonrpc/connection.js'
import { parseTranscript, parseTranscriptLine, TranscriptRecorder } from './transcript.js'
import { redactMcpSecrets } from './transcript-redaction.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-transcript-'))
  dirs.push(dir)
  return join(dir, 'wire.jsonl')
}

describe('TranscriptRecorder', () => {
  it('records both directions of a connection in wire order, raw lines for what did not parse', async () => {
    const path = tempFile()
    const recorder = new TranscriptRecorder(path, { flags: 'w' })
    const toServer = new PassThrough()
    const fromServer = new PassThrough()
    const connection = createNdjsonConnection(toServer, fromServer, {
      onWireLine: recorder.record,
      inbound: { request: () => 'pong', notification: () => {} },
    })
    const peer = new TestPeer(toServer, fromServer)
    peer.send('not json\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    await peer.response(1)
    // Written synchronously: the file is complete before close().
    const before = parseTranscript(readFileSync(path, 'utf8'))
    await recorder.close()
    connection.dispose()
    expect(before).toEqual([
      { dir: 'in', raw: 'not json' },
      { dir: 'out', msg: { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } } },
      { dir: 'in', msg: { jsonrpc: '2.0', id: 1, method: 'ping' } },
      { dir: 'out', msg: { jsonrpc: '2.0', id: 1, result: 'pong' } },
    ])
    expect(parseTranscript(readFileSync(path, 'utf8'))).toEqual(before)
  })

  it('appends by default, writes to a stream, and ignores records after close', async () => {
    const path = tempFile()
    const first = new TranscriptRecorder(path)
    first.record('in', '{"a":1}')
    await first.close()
    first.record('in', '{"ignored":true}')
    const second = new TranscriptRecorder(path)
    second.record('out', '{"b":"x\u2028y"}')
    await second.close()
    expect(parseTranscript(readFileSync(path, 'utf8'))).toEqual([
      { dir: 'in', msg: { a: 1 } },
      { dir: 'out', msg: { b: 'x\u2028y' } },
    ])

    const stream = new PassThrough()
    const streamed = new TranscriptRecorder(stream)
    streamed.record('out', '[1')
    await streamed.close()
    expect(parseTranscript(stream.read().toString())).toEqual([{ dir: 'out', raw: '[1' }])
  })
})

describe('transcript entries', () => {
  it('carry ms when the recorder has a clock, and base64 for a line that is not UTF-8', async () => {
    const stream = new PassThrough()
    let now = 1.23456
    const recorder = new TranscriptRecorder(stream, { elapsed: () => now })
    recorder.record('in', '{"id":1}')
    now = 7
    recorder.recordBytes('out', Buffer.from([0xff, 0x0a - 1]))
    await recorder.close()
    expect(stream.read().toString()).toBe(
      '{"dir":"in","ms":1.235,"msg":{"id":1}}\n{"dir":"out","ms":7,"rawBase64":"/wk="}\n',
    )
  })

  it('read the old msg:{raw} form as raw, and refuse lines that are not entries, naming the line', () => {
    expect(
      parseTranscript('{"dir":"in","msg":{"raw":"x"}}\n\n{"dir":"out","msg":{"raw":"x","id":1}}\n'),
    ).toEqual([
      { dir: 'in', raw: 'x' },
      { dir: 'out', msg: { raw: 'x', id: 1 } },
    ])
    expect(parseTranscriptLine('{"dir":"in","ms":3,"raw":"x"}', 1)).toEqual({ dir: 'in', ms: 3, raw: 'x' })
    expect(() => parseTranscript('{"dir":"in","msg":1}\nnope\n')).toThrow('transcript line 2: not JSON')
    expect(() => parseTranscriptLine('{"dir":"up","msg":1}', 4)).toThrow('line 4: dir must be')
    expect(() => parseTranscriptLine('{"dir":"in"}', 1)).toThrow('exactly one of msg, raw, rawBase64')
    expect(() => parseTranscriptLine('{"dir":"in","ms":-1,"msg":1}', 1)).toThrow('ms must be')
    expect(() => parseTranscriptLine('[]', 1)).toThrow('not a JSON object')
  })
})

describe('MCP secrets in a transcript', () => {
  it('keeps secrets out of a recorded wire line', () => {
    const line = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'session/new',
      params: {
        cwd: '/w',
        mcpServers: [
          { name: 'a', command: 'x', args: [], env: [{ name: 'TOKEN', value: 'secret-1' }] },
          {
            type: 'http',
            name: 'b',
            url: 'http://h',
            headers: [{ name: 'Authorization', value: 'secret-2' }],
          },
        ],
      },
    })
    const redacted = redactMcpSecrets(line)
    expect(redacted).not.toContain('secret-')
    expect(JSON.parse(redacted).params.mcpServers[0].env).toEqual([{ name: 'TOKEN', value: '***' }])
    expect(redactMcpSecrets('{"jsonrpc":"2.0","method":"x"}')).toBe('{"jsonrpc":"2.0","method":"x"}')
    const deep = `{"params":{"mcpServers":[{"env":[{"name":"K","value":"s3cret"}]}],"x":${'['.repeat(20000)}${']'.repeat(20000)}}}`
    const safe = redactMcpSecrets(deep)
    expect(safe).not.toContain('s3cret')
    expect(safe).toBe(deep.replace('"s3cret"', '"***"'))
    const escaped = '{"params":{"mcpServers":[{"env":[{"name":"K","value":"\\u0073ecret"}]}]}}'
    expect(JSON.parse(redactMcpSecrets(escaped))).toEqual({ withheld: expect.any(String) })
  })

  it("are a providers/set's header values too (an Authorization header holds the provider's key)", () => {
    const line = JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'providers/set',
      params: {
        providerId: 'p',
        apiType: 'openai',
        baseUrl: 'https://x',
        headers: { Authorization: 'Bearer sk-secret-9' },
      },
    })
    const redacted = redactMcpSecrets(line)
    expect(redacted).not.toContain('secret-9')
    expect(JSON.parse(redacted).params).toEqual({
      providerId: 'p',
      apiType: 'openai',
      baseUrl: 'https://x',
      headers: { Authorization: '***' },
    })
    const escaped = '{"method":"providers/set","params":{"headers":{"Authorization":"Bearer \\u0073ecret"}}}'
    expect(JSON.parse(redactMcpSecrets(escaped))).toEqual({ withheld: expect.any(String) })
  })

  it('are never recorded: the recorder redacts every line it is given', async () => {
    const path = tempFile()
    const recorder = new TranscriptRecorder(path, { flags: 'w' })
    const params = {
      cwd: '/w',
      mcpServers: [{ name: 'a', command: 'x', args: [], env: [{ name: 'K', value: 'hush-1' }] }],
    }
    recorder.record('in', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/new', params }))
    await recorder.close()
    const text = readFileSync(path, 'utf8')
    expect(text).not.toContain('hush-1')
    expect(parseTranscript(text)).toEqual([
      {
        dir: 'in',
        msg: {
          jsonrpc: '2.0',
          id: 1,
          method: 'session/new',
          params: {
            ...params,
            mcpServers: [{ ...params.mcpServers[0], env: [{ name: 'K', value: '***' }] }],
          },
        },
      },
    ])
  })
})
