import { describe, expect, it } from 'vitest'
import { readSseBatches, type SseEvent, SseParser } from './sse-parser.js'

function parseAll(pieces: readonly string[]): SseEvent[] {
  const parser = new SseParser()
  return [...pieces.flatMap((piece) => parser.push(piece)), ...parser.end()]
}

function bytesStream(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk)
      controller.close()
    },
  })
}

async function collect(batches: AsyncIterable<SseEvent[]>): Promise<SseEvent[]> {
  const out: SseEvent[] = []
  for await (const batch of batches) {
    expect(batch.length).toBeGreaterThan(0)
    out.push(...batch)
  }
  return out
}

const STREAM = [
  ': keepalive',
  'data: {"a":1}',
  '',
  'event: error',
  'data: first line',
  'data:second line',
  'id: 7',
  'retry: 10',
  '',
  ':another comment',
  '',
  'data',
  '',
  'data: [DONE]',
  '',
  '',
].join('\n')

const EXPECTED: SseEvent[] = [
  { event: 'message', data: '{"a":1}' },
  { event: 'error', data: 'first line\nsecond line' },
  { event: 'message', data: '' },
  { event: 'message', data: '[DONE]' },
]

describe('SseParser', () => {
  it('parses data, multi-line data, event names, comments and bare fields', () => {
    expect(parseAll([STREAM])).toEqual(EXPECTED)
  })

  it('accepts CRLF and lone CR line ends', () => {
    expect(parseAll([STREAM.replaceAll('\n', '\r\n')])).toEqual(EXPECTED)
    expect(parseAll([STREAM.replaceAll('\n', '\r')])).toEqual(EXPECTED)
  })

  it('gives the same events whatever the chunking (every split point, CRLF split across chunks)', () => {
    for (const text of [STREAM, STREAM.replaceAll('\n', '\r\n')]) {
      for (let at = 0; at <= text.length; at++) {
        expect(parseAll([text.slice(0, at), text.slice(at)])).toEqual(EXPECTED)
      }
      expect(parseAll([...text])).toEqual(EXPECTED)
    }
  })

  it('keeps only one leading space of a value and skips events without data', () => {
    expect(parseAll(['data:  two spaces\n\nevent: ping\n\n'])).toEqual([
      { event: 'message', data: ' two spaces' },
    ])
  })

  it('returns an event the stream cut before its blank line, at end', () => {
    const parser = new SseParser()
    expect(parser.push('data: {"last":true}')).toEqual([])
    expect(parser.end()).toEqual([{ event: 'message', data: '{"last":true}' }])
  })
})

describe('readSseBatches', () => {
  it('decodes UTF-8 split across byte chunks at every position', async () => {
    const text = 'data: {"t":"héllo 世界 🎉"}\r\n\r\ndata: [DONE]\r\n\r\n'
    const bytes = new TextEncoder().encode(text)
    const expected = [
      { event: 'message', data: '{"t":"héllo 世界 🎉"}' },
      { event: 'message', data: '[DONE]' },
    ]
    const singleBytes = [...bytes].map((byte) => Uint8Array.of(byte))
    expect(await collect(readSseBatches(bytesStream(singleBytes)))).toEqual(expected)
    for (let at = 0; at <= bytes.length; at++) {
      const split = [bytes.subarray(0, at), bytes.subarray(at)]
      expect(await collect(readSseBatches(bytesStream(split)))).toEqual(expected)
    }
  })

  it('reports every non-empty chunk and cancels the body when the caller stops early', async () => {
    let cancelled = false
    let reads = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode(`data: ${reads++}\n\n`))
      },
      cancel() {
        cancelled = true
      },
    })
    let chunks = 0
    for await (const [event] of readSseBatches(body, () => chunks++)) {
      if (event?.data === '2') break
    }
    expect(chunks).toBe(3)
    expect(cancelled).toBe(true)
  })
})
