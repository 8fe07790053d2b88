import { describe, expect, it } from 'vitest'
import { readSseBatches, type SseEvent } from './sse.js'

/** The events of a body that arrives as `pieces` (text, one body chunk each). */
function parseAll(pieces: readonly string[]): Promise<SseEvent[]> {
  const encoder = new TextEncoder()
  return collect(readSseBatches(bytesStream(pieces.map((piece) => encoder.encode(piece)))))
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

describe('readSseBatches: the event-stream format', () => {
  it('parses data, multi-line data, event names, comments and bare fields', async () => {
    expect(await parseAll([STREAM])).toEqual(EXPECTED)
  })

  it('accepts CRLF and lone CR line ends', async () => {
    expect(await parseAll([STREAM.replaceAll('\n', '\r\n')])).toEqual(EXPECTED)
    expect(await parseAll([STREAM.replaceAll('\n', '\r')])).toEqual(EXPECTED)
  })

  it('gives the same events whatever the chunking (every split point, CRLF split across chunks)', async () => {
    for (const text of [STREAM, STREAM.replaceAll('\n', '\r\n'), STREAM.replaceAll('\n', '\r')]) {
      for (let at = 0; at <= text.length; at++) {
        expect(await parseAll([text.slice(0, at), text.slice(at)])).toEqual(EXPECTED)
      }
      expect(await parseAll([...text])).toEqual(EXPECTED)
    }
  })

  it('keeps only one leading space of a value and skips events without data', async () => {
    expect(await parseAll(['data:  two spaces\n\nevent: ping\n\n'])).toEqual([
      { event: 'message', data: ' two spaces' },
    ])
  })

  it('returns an event the stream cut before its blank line, at end', async () => {
    expect(await parseAll(['data: {"last":true}'])).toEqual([{ event: 'message', data: '{"last":true}' }])
    expect(await parseAll(['data: {"last":true}\r'])).toEqual([{ event: 'message', data: '{"last":true}' }])
    expect(await parseAll(['data: {"last":true}\n'])).toEqual([{ event: 'message', data: '{"last":true}' }])
  })

  it('yields one batch per body chunk that completed events, as each chunk arrives', async () => {
    const encoder = new TextEncoder()
    const body = bytesStream(
      ['data: 1\n\nda', 'ta: 2\n\ndata: 3\n\n', ': ping\n'].map((t) => encoder.encode(t)),
    )
    const batches: SseEvent[][] = []
    for await (const batch of readSseBatches(body)) batches.push(batch)
    expect(batches).toEqual([
      [{ event: 'message', data: '1' }],
      [
        { event: 'message', data: '2' },
        { event: 'message', data: '3' },
      ],
    ])
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

describe('readSseBatches: the event limit', () => {
  /** An endless body: `head` once, then `piece` forever; reports when it was cancelled. */
  function endless(head: string, piece: string) {
    const encoder = new TextEncoder()
    const state = { cancelled: false, sent: 0 }
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(head))
      },
      pull(controller) {
        state.sent += piece.length
        controller.enqueue(encoder.encode(piece))
      },
      cancel() {
        state.cancelled = true
      },
    })
    return { body, state }
  }

  it('throws once a line without an end grows past the limit, and cancels the body', async () => {
    const { body, state } = endless('data: {"ok":1}\n\ndata: ', 'x'.repeat(4096))
    const seen: SseEvent[] = []
    const failure = await (async () => {
      for await (const batch of readSseBatches(body, undefined, 100_000)) seen.push(...batch)
    })().catch((error: unknown) => error)
    expect(failure).toMatchObject({ name: 'StreamLimitError', kind: 'event', limit: 100_000 })
    expect(seen).toEqual([{ event: 'message', data: '{"ok":1}' }])
    expect(state.cancelled).toBe(true)
    expect(state.sent).toBeLessThan(100_000 + 3 * 4096)
  })

  it('throws for an event of many data lines past the limit, and keeps events under it', async () => {
    const { body } = endless('', 'data: 0123456789\n')
    await expect(collect(readSseBatches(body, undefined, 5000))).rejects.toMatchObject({ kind: 'event' })
    const fits = `data: ${'y'.repeat(4990)}\n\n`
    expect(await parseAllWithin([fits], 5000)).toEqual([{ event: 'message', data: 'y'.repeat(4990) }])
    await expect(parseAllWithin([`data: ${'y'.repeat(5001)}\n\n`], 5000)).rejects.toMatchObject({
      kind: 'event',
    })
  })
})

function parseAllWithin(pieces: readonly string[], maxEventChars: number): Promise<SseEvent[]> {
  const encoder = new TextEncoder()
  return collect(
    readSseBatches(bytesStream(pieces.map((piece) => encoder.encode(piece))), undefined, maxEventChars),
  )
}
