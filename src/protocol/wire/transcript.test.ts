import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { TestPeer } from '../../../test/support/wire/test-peer.js'
import { createNdjsonConnection } from './connection.js'
import { parseTranscript, TranscriptRecorder } from './transcript.js'

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
    const { connection } = createNdjsonConnection(toServer, fromServer, { onWireLine: recorder.record })
    connection.onRequest('ping', () => 'pong')
    connection.listen()
    const peer = new TestPeer(toServer, fromServer)
    peer.send('not json\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    await peer.response(1)
    // Written synchronously: the file is complete before close().
    const before = parseTranscript(readFileSync(path, 'utf8'))
    await recorder.close()
    connection.dispose()
    expect(before).toEqual([
      { dir: 'in', msg: { raw: 'not json' } },
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
    expect(parseTranscript(stream.read().toString())).toEqual([{ dir: 'out', msg: { raw: '[1' } }])
  })
})
