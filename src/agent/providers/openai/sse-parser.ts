/** One server-sent event: its `event:` name (default `message`) and its `data:` lines joined by `\n`. */
export interface SseEvent {
  readonly event: string
  readonly data: string
}

/**
 * An incremental parser for the `text/event-stream` format (WHATWG HTML, "Server-sent events"):
 * lines end in CRLF, LF or CR (a CR at the end of one chunk and an LF at the start of the next are
 * one line end); `:` lines are comments (keepalives) and are skipped; `data:` lines accumulate
 * (one leading space removed) and a blank line dispatches them; an event with no data line is
 * dropped; `id:` and `retry:` are ignored. Feed it decoded text in chunks of any size.
 */
export class SseParser {
  #buffer = ''
  #data: string[] = []
  #event = ''

  /** Parses `text` and returns the events it completed. */
  push(text: string): SseEvent[] {
    const buffer = this.#buffer + text
    const events: SseEvent[] = []
    let start = 0
    let cr = buffer.indexOf('\r')
    for (;;) {
      const lf = buffer.indexOf('\n', start)
      if (cr !== -1 && cr < start) cr = buffer.indexOf('\r', start)
      let end: number
      let next: number
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        // A CR ending the text may be the first half of a CRLF: wait for what follows.
        if (cr + 1 === buffer.length) break
        end = cr
        next = buffer.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1
      } else if (lf !== -1) {
        end = lf
        next = lf + 1
      } else {
        break
      }
      this.#line(buffer.slice(start, end), events)
      start = next
    }
    this.#buffer = start === 0 ? buffer : buffer.slice(start)
    return events
  }

  /**
   * Ends the stream. Unlike a browser, which drops an event the stream cut before its blank line,
   * this returns it: some servers close right after their last `data:` line.
   */
  end(): SseEvent[] {
    const events: SseEvent[] = []
    if (this.#buffer !== '') this.#line(this.#buffer, events)
    this.#buffer = ''
    this.#line('', events)
    return events
  }

  #line(line: string, events: SseEvent[]): void {
    if (line === '') {
      if (this.#data.length > 0) events.push({ event: this.#event || 'message', data: this.#data.join('\n') })
      this.#data = []
      this.#event = ''
      return
    }
    if (line.startsWith(':')) return
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') this.#data.push(value)
    else if (field === 'event') this.#event = value
  }
}

/**
 * The events of an SSE byte stream, decoding UTF-8 across chunk boundaries: one batch per body
 * chunk that completed any (a batch is never empty). `onBytes` is called for every non-empty chunk
 * read, before it is parsed (so callers know the body started and is alive). Read errors
 * propagate; the body is cancelled when the caller stops early.
 */
export async function* readSseBatches(
  body: ReadableStream<Uint8Array>,
  onBytes?: () => void,
): AsyncGenerator<SseEvent[]> {
  const reader = body.getReader()
  const decoder = new TextDecoder('utf-8')
  const parser = new SseParser()
  let finished = false
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      if (value.byteLength === 0) continue
      onBytes?.()
      const events = parser.push(decoder.decode(value, { stream: true }))
      if (events.length > 0) yield events
    }
    finished = true
    const last = [...parser.push(decoder.decode()), ...parser.end()]
    if (last.length > 0) yield last
  } finally {
    if (!finished) reader.cancel().catch(() => {})
    reader.releaseLock()
  }
}
