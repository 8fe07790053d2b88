import { createParser } from 'eventsource-parser'
import { StreamLimitError } from './stream-limits.js'

/** One server-sent event: its `event:` name (default `message`) and its `data:` lines joined by `\n`. */
export interface SseEvent {
  readonly event: string
  readonly data: string
}

/**
 * The events of a `text/event-stream` byte stream (WHATWG HTML, "Server-sent events", parsed by
 * `eventsource-parser`), decoding UTF-8 across chunk boundaries: one batch per body chunk that
 * completed any (a batch is never empty). Lines end in CRLF, LF or CR, also when a CRLF is split
 * across chunks; `:` lines (keepalives) are skipped; `data:` lines accumulate (one leading space
 * removed) and a blank line dispatches them; an event with no data line is dropped; `id:` and
 * `retry:` are ignored. Unlike a browser, which drops an event the stream cut before its blank
 * line, this returns it: some servers close right after their last `data:` line.
 *
 * `onBytes` is called for every non-empty chunk read, before it is parsed (so callers know the
 * body started and is alive). Read errors propagate; the body is cancelled when the caller stops
 * early. An event (or a line) that grows past `maxEventChars` characters throws a
 * {@link StreamLimitError} (kind `event`) as soon as the chunk that crossed it is parsed, so memory
 * stays bounded by about that size; parsing is linear in the bytes read.
 */
export async function* readSseBatches(
  body: ReadableStream<Uint8Array>,
  onBytes?: () => void,
  maxEventChars = Number.MAX_SAFE_INTEGER,
): AsyncGenerator<SseEvent[]> {
  const reader = body.getReader()
  const decoder = new TextDecoder('utf-8')
  let batch: SseEvent[] = []
  let overflow = false
  const parser = createParser({
    onEvent: (message) => {
      if (message.data.length > maxEventChars) overflow = true
      else batch.push({ event: message.event ?? 'message', data: message.data })
    },
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') overflow = true
    },
    maxBufferSize: maxEventChars,
  })
  const feed = (text: string) => {
    parser.feed(text)
    if (overflow) throw new StreamLimitError('event', maxEventChars)
  }
  const completed = (): SseEvent[] => {
    const events = batch
    batch = []
    return events
  }
  let finished = false
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      if (value.byteLength === 0) continue
      onBytes?.()
      feed(decoder.decode(value, { stream: true }))
      if (batch.length > 0) yield completed()
    }
    finished = true
    // Two line ends close a last line cut short and dispatch an event cut before its blank line.
    feed(`${decoder.decode()}\n\n`)
    if (batch.length > 0) yield completed()
  } finally {
    if (!finished) reader.cancel().catch(() => {})
    reader.releaseLock()
  }
}
