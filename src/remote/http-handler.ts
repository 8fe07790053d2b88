import type { IncomingMessage, ServerResponse } from 'node:http'
import { type Gate, type Refusal, refusalOf } from './guard.js'
import type { Hub } from './hub.js'
import type { LogicalConnection } from './logical-connection.js'
import { openIdleSse, openSse } from './sse.js'

/** The path ACP is served on (HTTP and WebSocket); `/healthz` answers without a token. */
export const ACP_PATH = '/acp'
const CONNECTION_HEADER = 'acp-connection-id'
const SESSION_HEADER = 'acp-session-id'

/**
 * Streamable HTTP as the SDK's `http-client` speaks it: `POST` an `initialize` without a
 * connection id opens a connection (answered in the body, with `Acp-Connection-Id`); other
 * POSTs carry one client message each and are answered 202; `GET` opens the connection's one
 * event stream (all our messages, in order, resumable with `Last-Event-ID`), or, with
 * `Acp-Session-Id`, an idle stream the client waits for; `DELETE` ends the connection.
 */
export function httpHandler(hub: Hub, gate: Gate) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    // A socket over the cap was answered 503 already (listen.ts).
    if (request.socket.writableEnded) return void request.socket.destroy()
    const path = (request.url ?? '/').split('?')[0]
    if (path === '/healthz' && request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ status: 'ok', connections: hub.size }))
      return
    }
    if (path !== ACP_PATH)
      return void refuse(response, { status: 404, reason: `ACP is served on ${ACP_PATH}` })
    const refusal = refusalOf(request, gate)
    if (refusal) return void refuse(response, refusal)
    const id = header(request, CONNECTION_HEADER)
    const exchange: Exchange = { hub, request, response }
    switch (request.method) {
      case 'POST':
        return void post(exchange, id)
      case 'GET':
        return void get(exchange, id)
      case 'DELETE':
        return void remove(hub, response, id)
      default:
        response.setHeader('allow', 'GET, POST, DELETE')
        return void refuse(response, { status: 405, reason: `${request.method} is not served` })
    }
  }
}

/** One HTTP request of a client, with the hub it reaches and the response it gets. */
interface Exchange {
  readonly hub: Hub
  readonly request: IncomingMessage
  readonly response: ServerResponse
}

async function post(exchange: Exchange, id: string | undefined) {
  const { hub, request, response } = exchange
  const body = await readBody(request, hub.limits.maxMessageBytes)
  if (typeof body !== 'string') return void refuse(response, body, true)
  const message = parseMessage(body)
  if ('status' in message) return void refuse(response, message)
  if (id === undefined) return initialize(exchange, body, message)
  const connection = hub.get(id)
  if (!connection) return void refuse(response, unknownConnection(id))
  // A notification (a cancel) or an answer to our request is taken: it frees, never holds.
  if (isRequest(message) && connection.pendingBytes > hub.limits.maxBufferedBytes) {
    response.setHeader('retry-after', '1')
    return void refuse(response, {
      status: 429,
      reason: `${connection.pendingBytes} bytes of this connection's requests are not answered yet: wait for their answers`,
    })
  }
  connection.deliver(body, message)
  response.writeHead(202).end()
}

/** The connection's first message must be `initialize`; its answer comes in this response's body. */
async function initialize(exchange: Exchange, body: string, message: { method?: unknown; id?: unknown }) {
  const { hub, request, response } = exchange
  if (message.method !== 'initialize' || !(typeof message.id === 'string' || typeof message.id === 'number'))
    return void refuse(response, {
      status: 400,
      reason: 'a new connection starts with an initialize request',
    })
  const connection = hub.open(peerOf(request))
  if (!connection) return void refuse(response, { status: 503, reason: 'too many connections' })
  const answer = connection.divertResponse(message.id)
  connection.deliver(body, message)
  const line = await answer
  response.writeHead(200, { 'content-type': 'application/json', 'Acp-Connection-Id': connection.id })
  response.end(line)
}

function get(exchange: Exchange, id: string | undefined) {
  const { hub, request, response } = exchange
  const connection = hub.get(id)
  if (!connection) return void refuse(response, unknownConnection(id))
  if (header(request, SESSION_HEADER) !== undefined) {
    const close = openIdleSse(response, hub.limits)
    const forget = connection.companion(close)
    response.once('close', forget)
    return
  }
  const lastEventId = header(request, 'last-event-id')
  const backlog = backlogFor(connection, lastEventId)
  if (!backlog) {
    return void refuse(response, {
      status: 409,
      reason: `the stream after event ${lastEventId} is no longer kept: resume the session with session/load`,
    })
  }
  const sink = openSse(response, hub.limits, (cutBecause) => {
    if (cutBecause) hub.log(`connection ${connection.id}: stream cut off: ${cutBecause}`)
    connection.detach(sink)
  })
  connection.attach(sink, backlog)
  hub.log(`connection ${connection.id}: stream attached after cursor ${lastEventId ?? 'start'}`)
}

/** What a new stream starts with; undefined when the cursor cannot be honoured. */
function backlogFor(connection: LogicalConnection, lastEventId: string | undefined) {
  if (lastEventId === undefined) return connection.attachedBefore ? [] : connection.log.after(0)
  if (!/^\d{1,15}$/.test(lastEventId)) return undefined
  return connection.log.after(Number(lastEventId))
}

function remove(hub: Hub, response: ServerResponse, id: string | undefined) {
  const connection = hub.get(id)
  if (!connection) return void refuse(response, unknownConnection(id))
  void connection.close()
  response.writeHead(204).end()
}

/** The body as text, or the refusal when it is larger than `max` bytes. */
function readBody(request: IncomingMessage, max: number): Promise<string | Refusal> {
  const tooLarge: Refusal = { status: 413, reason: `a message is at most ${max} bytes` }
  const declared = Number(request.headers['content-length'])
  if (Number.isFinite(declared) && declared > max) return Promise.resolve(tooLarge)
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > max) {
        request.removeAllListeners('data')
        request.pause()
        resolve(tooLarge)
      } else chunks.push(chunk)
    })
    request.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    request.once('error', () => resolve({ status: 400, reason: 'the request body failed' }))
  })
}

function parseMessage(body: string): { method?: unknown; id?: unknown } | Refusal {
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch {
    return { status: 400, reason: 'the body is not JSON' }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { status: 400, reason: 'the body must be one JSON-RPC message (an object)' }
  return value as { method?: unknown; id?: unknown }
}

/** Whether `message` is a request (it has a method and an id). */
export function isRequest(message: { method?: unknown; id?: unknown }): boolean {
  return message.method !== undefined && message.id !== undefined
}

function unknownConnection(id: string | undefined): Refusal {
  return id === undefined
    ? { status: 400, reason: 'Acp-Connection-Id is required' }
    : { status: 404, reason: `no connection ${id} (it closed or expired): initialize again` }
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}

export function peerOf(request: IncomingMessage): string {
  return `${request.socket.remoteAddress ?? '?'}:${request.socket.remotePort ?? '?'}`
}

/** A refusal as a short JSON body; `close`: the rest of the request is not read (a body too large). */
function refuse(response: ServerResponse, refusal: Refusal, close = false): void {
  if (response.headersSent) return void response.destroy()
  response.writeHead(refusal.status, {
    'content-type': 'application/json',
    ...(close && { connection: 'close' }),
  })
  response.end(JSON.stringify({ error: refusal.reason }))
}
