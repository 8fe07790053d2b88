import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { PassThrough, Writable } from 'node:stream'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { Message } from 'vscode-jsonrpc'
import { createNdjsonConnection } from '../connection.js'
import { RequestLedger } from '../ledger.js'
import { joinedPieces } from './write-batch.js'
import { NdjsonMessageWriter } from './writer.js'

/** Handlers for connections whose peer sends nothing. */
const ignoreInbound = { request: () => null, notification: () => {} }

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** A sink that holds each write until `release()` is called, with a tiny buffer. */
class HeldSink extends Writable {
  readonly chunks: string[] = []
  private held: Array<() => void> = []
  constructor() {
    super({ highWaterMark: 1, decodeStrings: false })
  }
  override _write(chunk: string, _encoding: BufferEncoding, callback: () => void): void {
    this.chunks.push(chunk)
    this.held.push(callback)
  }
  release(): void {
    for (const callback of this.held.splice(0)) callback()
  }
  get heldCount(): number {
    return this.held.length
  }
}

const note = (n: number) => ({ jsonrpc: '2.0', method: 'n', params: { n } })

describe('NdjsonMessageWriter', () => {
  it('waits for drain when the stream pushes back, keeps FIFO order, and drain() waits for the OS', async () => {
    const sink = new HeldSink()
    const writer = new NdjsonMessageWriter(sink)
    const settled: number[] = []
    await writer.write(note(1)).then(() => settled.push(1))
    expect(sink.chunks).toHaveLength(1) // handed over; the sink pushed back
    const writes = [2, 3].map((n) => writer.write(note(n)).then(() => settled.push(n)))
    let drained = false
    const drain = writer.drain().then(() => {
      drained = true
    })
    await nextTurn()
    expect(sink.chunks).toHaveLength(1)
    expect(settled).toEqual([1])
    sink.release()
    await Promise.all(writes)
    expect(settled).toEqual([1, 2, 3])
    expect(drained).toBe(false)
    sink.release()
    await drain
    expect(sink.chunks.join('')).toBe(`${[1, 2, 3].map((n) => JSON.stringify(note(n))).join('\n')}\n`)
  })

  it('writes a line given as bytes as it is, in order with the lines it serializes, and shows it to onLine', async () => {
    const output = new PassThrough()
    const lines: string[] = []
    const writer = new NdjsonMessageWriter(output, { onLine: (l) => lines.push(l) })
    const given = { jsonrpc: '2.0', method: 'n', params: { text: 'é😀' } }
    const writes = [
      writer.write(note(1)),
      writer.write(given as Message, Buffer.from(`${JSON.stringify(given)}\n`)),
      writer.write(note(2)),
    ]
    await Promise.all(writes)
    const expected = [note(1), given, note(2)].map((m) => JSON.stringify(m))
    expect(output.read().toString()).toBe(`${expected.join('\n')}\n`)
    expect(lines).toEqual(expected)
  })

  it('rejects a message that cannot be serialized and writes nothing for it', async () => {
    const output = new PassThrough()
    const writer = new NdjsonMessageWriter(output)
    await expect(writer.write({ jsonrpc: '2.0', method: 'x', params: { n: 1n } } as never)).rejects.toThrow()
    await writer.write(note(1))
    expect(output.read().toString()).toBe(`${JSON.stringify(note(1))}\n`)
  })

  it('releases inbound ids on responses, not on requests of ours with the same id', async () => {
    const ledger = new RequestLedger()
    const writer = new NdjsonMessageWriter(new PassThrough(), { ledger })
    ledger.admitInbound(4)
    ledger.admitInbound(9)
    await writer.write({ jsonrpc: '2.0', id: 4, result: null } as Message)
    await writer.write({ jsonrpc: '2.0', id: 9, method: 'ask' } as Message)
    expect(ledger.hasInbound(4)).toBe(false)
    expect(ledger.hasInbound(9)).toBe(true)
  })

  it('after an output error: reports once, closes once, and later writes resolve without writing', async () => {
    const output = new Writable({
      write(_chunk, _encoding, callback) {
        callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))
      },
    })
    const writer = new NdjsonMessageWriter(output)
    const errors: Error[] = []
    let closes = 0
    writer.onError(([error]) => errors.push(error))
    writer.onClose(() => closes++)
    const outputClosed = new Promise((resolve) => output.on('close', resolve))
    await writer.write(note(1))
    await outputClosed
    await writer.write(note(2))
    await writer.drain()
    expect(writer.isClosed).toBe(true)
    expect(errors.map((e) => (e as { code?: string }).code)).toEqual(['EPIPE'])
    expect(closes).toBe(1)
  })

  it('survives a real EPIPE: the reading process is gone, the connection closes, nothing throws', async () => {
    // The child closes its end of our output pipe and stays alive until killed.
    const script = "require('fs').closeSync(0); process.stdout.write('ready'); setInterval(() => {}, 1000)"
    const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'ignore'] })
    onTestFinished(() => {
      child.kill()
    })
    await once(child.stdout, 'data')
    const input = new PassThrough()
    const logs: string[] = []
    const connection = createNdjsonConnection(input, child.stdin, {
      inbound: ignoreInbound,
      log: (message) => logs.push(message),
    })
    const { writer } = connection
    const codes: unknown[] = []
    writer.onError(([error]) => codes.push((error as { code?: string }).code))
    const big = { text: 'x'.repeat(256 * 1024) }
    for (let i = 0; i < 4 && !writer.isClosed; i++) await connection.notify('session/update', big)
    await connection.outputClosed
    await connection.drain()
    expect(writer.isClosed).toBe(true)
    expect(codes).toEqual(['EPIPE'])
    expect(logs).toEqual([expect.stringMatching(/^connection error: .*EPIPE/)])
    // After the close, notifications resolve without writing, and requests are refused.
    await connection.notify('session/update', {})
    await expect(connection.request('client/ask', {})).rejects.toThrow(/closed/i)
    connection.dispose()
  })
})

describe('joinedPieces: lines held for a slow reader never make one string past V8’s limit', () => {
  it('joins lines into pieces of at most 16 MiB characters, a longer line alone, nothing lost', () => {
    const big = 'x'.repeat(10 * 1024 * 1024)
    const lines = [big, 'a', big, big, 'b']
    const pieces = joinedPieces(lines)
    expect(pieces.map((p) => p.length)).toEqual([big.length + 3, big.length + 1, big.length + 3])
    expect(pieces.join('')).toBe(`${lines.join('\n')}\n`)
    expect(joinedPieces(['only'])).toEqual(['only\n'])
  })
})
