import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js'

/**
 * The largest MCP message (bytes) read from a server: 10 MiB (the SDK's stdio default). Over
 * stdio it is the SDK's line buffer: a longer line closes the connection (the stream cannot be
 * read on past it), so the server is reported lost. Over streamable HTTP a JSON answer, or one
 * server-sent event, past it is not read further: when it answers a request, the request gets a
 * JSON-RPC error saying so instead (a tool call fails with that reason), else the stream ends
 * with an error.
 */
export const MCP_MESSAGE_LIMIT = 10 * 1024 * 1024

/** The JSON-RPC error code of an answer that was refused for its size. */
const TOO_LARGE = -32_000

/** `fetch` whose response bodies hold no message larger than `limit` (see {@link MCP_MESSAGE_LIMIT}). */
export function cappedFetch(limit = MCP_MESSAGE_LIMIT, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await base(url, init)
    if (response.body === null || [101, 204, 205, 304].includes(response.status)) return response
    const type = response.headers.get('content-type') ?? ''
    const id = requestId(init?.body)
    const replacement = (sse: boolean) => tooLarge(id, limit, sse)
    const body = type.includes('text/event-stream')
      ? response.body.pipeThrough(capEvents(limit, replacement))
      : response.body.pipeThrough(capWhole(limit, replacement))
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    })
  }
}

type Replacement = (sse: boolean) => Uint8Array | undefined

/** The whole body held (up to `limit`) and passed on at its end; past it, the replacement. */
function capWhole(limit: number, replacement: Replacement): TransformStream<Uint8Array, Uint8Array> {
  let held: Uint8Array[] = []
  let size = 0
  return new TransformStream({
    transform(chunk, controller) {
      size += chunk.byteLength
      if (size <= limit) {
        held.push(chunk)
        return
      }
      held = []
      const instead = replacement(false)
      if (instead === undefined) controller.error(new Error(overLimit(limit)))
      else {
        controller.enqueue(instead)
        controller.terminate()
      }
    },
    flush(controller) {
      for (const chunk of held) controller.enqueue(chunk)
    },
  })
}

/**
 * Server-sent events passed on whole, one at a time (an event ends at a blank line); an event
 * past `limit` bytes is dropped for the replacement, and the stream ends.
 */
function capEvents(limit: number, replacement: Replacement): TransformStream<Uint8Array, Uint8Array> {
  let held: Uint8Array[] = []
  let eventBytes = 0
  let lineBytes = 0
  return new TransformStream({
    transform(chunk, controller) {
      let start = 0
      let pos = 0
      while (pos < chunk.byteLength) {
        const newline = chunk.indexOf(10, pos)
        const end = newline === -1 ? chunk.byteLength : newline
        const content = end - pos - (end > pos && chunk[end - 1] === 13 ? 1 : 0)
        lineBytes += content
        eventBytes += end - pos + (newline === -1 ? 0 : 1)
        if (eventBytes > limit) {
          held = []
          const instead = replacement(true)
          if (instead === undefined) controller.error(new Error(overLimit(limit)))
          else {
            controller.enqueue(instead)
            controller.terminate()
          }
          return
        }
        if (newline === -1) break
        pos = newline + 1
        if (lineBytes === 0) {
          // A blank line: the event is complete.
          for (const part of held) controller.enqueue(part)
          held = []
          controller.enqueue(chunk.subarray(start, pos))
          start = pos
          eventBytes = 0
        }
        lineBytes = 0
      }
      if (start < chunk.byteLength) held.push(chunk.slice(start))
    },
    flush(controller) {
      for (const part of held) controller.enqueue(part)
    },
  })
}

function overLimit(limit: number): string {
  return `the MCP server sent a message larger than the ${limit}-byte limit`
}

/** The JSON-RPC error answering request `id` (as a server-sent event when `sse`), if it has one. */
function tooLarge(id: string | number | undefined, limit: number, sse: boolean): Uint8Array | undefined {
  if (id === undefined) return undefined
  const message = JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: { code: TOO_LARGE, message: `${overLimit(limit)}; its answer was not read` },
  })
  return new TextEncoder().encode(sse ? `event: message\ndata: ${message}\n\n` : message)
}

/** The id of the JSON-RPC request a POST body carries (one request, as the SDK sends them). */
function requestId(body: unknown): string | number | undefined {
  if (typeof body !== 'string') return undefined
  try {
    const message = JSON.parse(body) as { id?: unknown; method?: unknown }
    if (typeof message.method !== 'string') return undefined
    return typeof message.id === 'string' || typeof message.id === 'number' ? message.id : undefined
  } catch {
    return undefined
  }
}
