import type { ServerResponse } from 'node:http'
import type { Entry } from './cursor-log.js'
import type { RemoteLimits } from './limits.js'
import type { Sink } from './logical-connection.js'

/**
 * An open `text/event-stream` response as a `Sink`: each message an event whose `id:` is its
 * cursor (what a client sends back as `Last-Event-ID`). Every `keepaliveMs` a comment goes out; a
 * reader that lets more than `maxBufferedBytes` queue up, or lets queued bytes sit for
 * `maxOutputStallMs`, is cut off (its messages stay kept for a resume). `onGone` runs once when
 * the response ends, whoever ended it.
 */
export function openSse(
  response: ServerResponse,
  limits: RemoteLimits,
  onGone: (cutBecause?: string) => void,
): Sink {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
  })
  response.flushHeaders()
  let queued = 0
  let stalledSince: number | undefined
  let cutBecause: string | undefined
  const cut = (why: string) => {
    cutBecause = why
    response.destroy()
  }
  const timer = setInterval(() => {
    const now = Date.now()
    const length = response.writableLength
    if (length > 0 && length >= queued) stalledSince ??= now
    else stalledSince = undefined
    queued = length
    if (stalledSince !== undefined && now - stalledSince >= limits.maxOutputStallMs)
      return void cut('the client stopped reading')
    response.write(':\n\n')
  }, limits.keepaliveMs)
  timer.unref()
  let gone = false
  const finish = () => {
    if (gone) return
    gone = true
    clearInterval(timer)
    onGone(cutBecause)
  }
  response.once('close', finish)
  const flushSoon = outgoingSoon(response)
  return {
    send(entry: Entry) {
      if (gone) return
      response.write(`id: ${entry.cursor}\ndata: ${entry.line}\n\n`)
      flushSoon()
      if (response.writableLength > limits.maxBufferedBytes) cut('the client does not read its stream')
    },
    close() {
      if (!gone) response.end()
    },
  }
}

/** A stream that carries nothing but keepalives (the per-session streams the SDK's client opens). */
export function openIdleSse(response: ServerResponse, limits: RemoteLimits): () => void {
  const sink = openSse(response, limits, () => {})
  return () => sink.close()
}

/**
 * Sends what `response.write` queued once the microtasks queued before it have run. Node's
 * `ServerResponse` corks its socket at a write and uncorks it in a `process.nextTick`, which runs
 * only once the whole microtask queue is empty: a turn that goes on in microtasks (a model whose
 * stream is already buffered, a store in memory) would otherwise hold every event back until it
 * ended. The events of one burst still leave in one `writev`.
 */
function outgoingSoon(response: ServerResponse): () => void {
  let queued = false
  const flush = () => {
    queued = false
    const socket = response.socket
    if (socket && socket.writableCorked > 0) socket.uncork()
  }
  return () => {
    if (queued) return
    queued = true
    RESOLVED.then(flush)
  }
}

/** Schedules microtasks without `queueMicrotask`'s async-resource bookkeeping. */
const RESOLVED = Promise.resolve()
